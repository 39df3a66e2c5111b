using System.Buffers;
using AmqpConformance.Harness.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A content-bearing command being assembled on one channel: its method, then its header, then its
/// body frames until the declared body size is reached (RabbitMQ's command assembler, as a class).</summary>
internal sealed class PendingContent(BasicPublish method, long methodSequence)
{
    private byte[]? _body;
    private int _written;

    public BasicPublish Method { get; } = method;

    /// <summary>Frame-log sequence of the method frame.</summary>
    public long MethodSequence { get; } = methodSequence;

    /// <summary>The header, once it arrived.</summary>
    public ContentHeader? Header { get; private set; }

    public byte[] HeaderPayload { get; private set; } = [];

    /// <summary>Body bytes declared by the header.</summary>
    public long DeclaredSize { get; private set; }

    /// <summary>Body bytes received so far (may pass <see cref="DeclaredSize"/> when the client overruns it).</summary>
    public long Received { get; private set; }

    /// <summary>Whether body frames went past the declared size (RabbitMQ 3.x then waits forever for the end,
    /// and closes with 505 on the channel's next non-body frame).</summary>
    public bool Overran => Received > DeclaredSize;

    /// <summary>Whether a frame of another channel was already reported as interleaved into this command.</summary>
    public bool InterleavingReported { get; set; }

    public bool HeaderReceived => Header is not null;

    public bool IsComplete => Header is not null && Received == DeclaredSize;

    public void SetHeader(ContentHeader header, byte[] payload)
    {
        Header = header;
        HeaderPayload = payload;
        DeclaredSize = (long)Math.Min(header.BodySize, long.MaxValue);
    }

    /// <summary>Appends a body frame's payload. Bytes past the declared size are counted, not kept.</summary>
    public void Append(in ReadOnlySequence<byte> fragment)
    {
        long keep = Math.Max(0, Math.Min(fragment.Length, DeclaredSize - Received));
        if (keep > 0)
        {
            EnsureCapacity(_written + (int)keep);
            fragment.Slice(0, keep).CopyTo(_body.AsSpan(_written));
            _written += (int)keep;
        }
        Received += fragment.Length;
    }

    /// <summary>Grows the body buffer as bytes arrive (never beyond the declared size), so a header that declares a
    /// large body costs nothing until the body frames actually come.</summary>
    [System.Diagnostics.CodeAnalysis.MemberNotNull(nameof(_body))]
    private void EnsureCapacity(int needed)
    {
        if (_body is not null && _body.Length >= needed) return;
        long size = Math.Max(needed, Math.Min(DeclaredSize, Math.Max(64 * 1024, (long)(_body?.Length ?? 0) * 2)));
        var grown = new byte[size];
        _body?.AsSpan(0, _written).CopyTo(grown);
        _body = grown;
    }

    public ReadOnlyMemory<byte> Body => _body is null ? ReadOnlyMemory<byte>.Empty : _body.AsMemory(0, _written);
}
