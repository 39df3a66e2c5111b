using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>A content-bearing command being assembled on one channel: its method, then its header, then its body frames
/// until the declared body size is reached (RabbitMQ's command assembler, as a class). A channel reuses its instance
/// for the next command once one completed (<see cref="Start"/>), so assembling a message allocates nothing
/// here.</summary>
internal sealed class PendingContent
{
    private byte[]? _body;
    private bool _bodyFromBodyPool; // _body came from BodyPool.Shared, not ArrayPool<byte>.Shared
    private int _written;

    /// <summary>A body frame's payload that carried the whole body (<see cref="TryTakeWhole"/>), still in the receive
    /// buffer; <see cref="_isBorrowed"/> says whether there is one.</summary>
    private ReadOnlySequence<byte> _borrowed;
    private bool _isBorrowed;

    /// <summary>Starts assembling a new command: everything of the previous one is forgotten (its body was
    /// taken).</summary>
    public PendingContent Start(BasicPublish method, long methodSequence)
    {
        Method = method;
        MethodSequence = methodSequence;
        Header = null;
        HeaderPayload = [];
        DeclaredSize = 0;
        Received = 0;
        InterleavingReported = false;
        _body = null;
        _bodyFromBodyPool = false;
        _written = 0;
        _borrowed = default;
        _isBorrowed = false;
        return this;
    }

    public BasicPublish Method { get; private set; } = new();

    /// <summary>Frame-log sequence of the method frame.</summary>
    public long MethodSequence { get; private set; }

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

    /// <summary>Takes the first body frame's payload as the whole body, without copying it, when it is exactly the
    /// declared size and small enough for a <see cref="BodySlab"/> (the usual small message: one body frame); returns
    /// false, taking nothing, otherwise (then <see cref="Append"/> it). The payload stays in the receive buffer, so the
    /// caller must complete the content and call <see cref="TakeBody"/> before it handles the next frame: an unroutable
    /// message is then never copied, and a stored one is copied once, into its slab.</summary>
    public bool TryTakeWhole(in ReadOnlySequence<byte> fragment)
    {
        if (
            Received != 0
            || Header is null
            || fragment.Length != DeclaredSize
            || DeclaredSize is 0 or > BodySlab.MaxBodyLength
        )
            return false;
        _borrowed = fragment;
        _isBorrowed = true;
        Received = fragment.Length;
        return true;
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
    /// large body costs nothing until the body frames actually come. A body <see cref="BodyPool"/> pools gets its whole
    /// buffer from <see cref="BodyPool.Shared"/> on the first body frame (memory earlier queues gave back, so not fresh
    /// pages); other buffers are rented from <see cref="ArrayPool{T}.Shared"/> (not zeroed), the first one holding the
    /// whole body when it declares at most <see cref="WholeBodyRentLimit"/> bytes.</summary>
    [System.Diagnostics.CodeAnalysis.MemberNotNull(nameof(_body))]
    private void EnsureCapacity(int needed)
    {
        if (_body is not null && _body.Length >= needed)
            return;
        if (_body is null && BodyPool.Pools(DeclaredSize))
        {
            _body = BodyPool.Shared.Rent((int)DeclaredSize);
            _bodyFromBodyPool = true;
            return;
        }
        long size = _body is null
            ? Math.Max(needed, Math.Min(DeclaredSize, WholeBodyRentLimit))
            : Math.Max(needed, Math.Min(DeclaredSize, (long)_body.Length * 2));
        var grown = ArrayPool<byte>.Shared.Rent((int)size);
        if (_body is not null)
        {
            _body.AsSpan(0, _written).CopyTo(grown);
            ArrayPool<byte>.Shared.Return(_body);
        }
        _body = grown;
    }

    /// <summary>Bodies up to this size get their whole buffer on the first body frame (one rent, no
    /// regrowth).</summary>
    private const long WholeBodyRentLimit = 4 * 1024 * 1024;

    /// <summary>Ends assembly. With <paramref name="keep"/>, returns the body as memory the caller owns from now on;
    /// without, returns the buffer to its pool and an empty body, for a message nobody will ever read (unroutable, not
    /// mandatory, not kept). A kept body whose buffer came from <see cref="BodyPool"/> comes with
    /// <paramref name="storage"/> when the caller says it can track it (<paramref name="poolable"/>: the message only
    /// goes to queues, see <see cref="PooledBody"/>), and is then a slice of that buffer; a small body (up to
    /// <see cref="BodySlab.MaxBodyLength"/>) is copied into <paramref name="slab"/>, and comes with its slab's
    /// <paramref name="storage"/> when the slab is pooled and the body poolable; otherwise a larger one is the buffer
    /// itself when it fits exactly, else an exact-size copy (and the buffer goes back to its pool), and
    /// <paramref name="storage"/> is null: the memory is the message's for good.</summary>
    public ReadOnlyMemory<byte> TakeBody(bool keep, bool poolable, BodySlab? slab, out PooledBody? storage)
    {
        storage = null;
        if (_isBorrowed)
        {
            var borrowed = _borrowed;
            _borrowed = default;
            _isBorrowed = false;
            if (!keep)
                return ReadOnlyMemory<byte>.Empty;
            return slab is not null ? slab.Keep(borrowed, poolable, out storage) : borrowed.ToArray();
        }
        byte[]? body = _body;
        bool fromBodyPool = _bodyFromBodyPool;
        _body = null;
        _bodyFromBodyPool = false;
        if (body is null)
            return ReadOnlyMemory<byte>.Empty;
        if (keep && fromBodyPool && poolable)
        {
            storage = new PooledBody(body, BodyPool.Shared);
            return body.AsMemory(0, _written);
        }
        ReadOnlyMemory<byte> result = ReadOnlyMemory<byte>.Empty;
        if (keep && slab is not null && _written <= BodySlab.MaxBodyLength)
        {
            result = slab.Keep(body.AsSpan(0, _written), poolable, out storage);
        }
        else if (keep && body.Length == _written)
        {
            return body; // handed over: never returned to the pool
        }
        else if (keep)
        {
            var copy = GC.AllocateUninitializedArray<byte>(_written);
            body.AsSpan(0, _written).CopyTo(copy);
            result = copy;
        }
        if (fromBodyPool)
            BodyPool.Shared.Return(body);
        else
            ArrayPool<byte>.Shared.Return(body);
        return result;
    }
}
