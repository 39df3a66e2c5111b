using System.Buffers;
using System.Runtime.CompilerServices;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker;

/// <content>What the broker reports without closing anything: the strict profile's frame_max rule, content commands
/// interleaved across channels (legal for RabbitMQ, a broken promise for a writer that promises whole commands), and a
/// stream that ended inside a frame.</content>
public sealed partial class BrokerConnection
{
    private readonly byte[] _partialHead = new byte[OctetText.MaxShown];
    private int _partialHeadLength;
    private long _partialLength;

    /// <summary>How many bytes of an unfinished frame the last read left waiting for the rest: a test that cuts a
    /// stream inside a frame waits for this instead of for time to pass.</summary>
    internal long PartialFrameBytes => Volatile.Read(ref _partialLength);

    /// <summary>Remembers the start of an incomplete frame left in the buffer after a read, so that if the stream ends
    /// (or the transport fails) before the rest arrives, the log can say what was cut off.</summary>
    private void RememberPartialFrame(in ReadOnlySequence<byte> rest)
    {
        _partialLength = rest.Length;
        if (rest.Length == 0)
            return;
        int n = (int)Math.Min(rest.Length, _partialHead.Length);
        rest.Slice(0, n).CopyTo(_partialHead);
        _partialHeadLength = n;
    }

    /// <summary>Records a "truncated-frame" finding when the stream ended inside a frame: how many of its bytes came,
    /// the size its header claimed (when the 7 header bytes came), and the first bytes.</summary>
    private void ReportTruncatedFrame(string how)
    {
        if (_partialLength == 0)
            return;
        long got = _partialLength;
        _partialLength = 0;
        var head = _partialHead.AsSpan(0, _partialHeadLength);
        string claim = "";
        if (head.Length >= AmqpConstants.FrameHeaderSize)
        {
            uint size = System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(head[3..]);
            ushort channel = System.Buffers.Binary.BinaryPrimitives.ReadUInt16BigEndian(head[1..]);
            claim =
                $" A {FrameTypeName(head[0])} frame on channel {channel} claimed a {size}-byte payload "
                + $"({(long)size + AmqpConstants.FrameOverhead} bytes in all; {got} arrived, {(long)size + AmqpConstants.FrameOverhead - got} missing).";
        }
        else
        {
            claim = " Not even the 7-byte frame header arrived.";
        }
        var finding = new ProtocolFinding(
            -1,
            0,
            "truncated-frame",
            $"The client's stream ended inside a frame ({got} byte(s) of an incomplete frame at wire offset {_receivedOffset}): {how}.{claim} "
                + $"Received: {OctetText.Describe(head, got)}.",
            ClosedConnection: false
        );
        Log.AddFinding(finding);
        BrokerLog.FindingReported(_logger, Id, finding.ReplyCode, finding.Rule, finding.Sequence, finding.Message);
    }

    /// <summary>The strict profile's frame_max rule (checked by the caller): a frame over the negotiated
    /// frame_max.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportOverFrameMax(long sequence, in RawFrame frame) =>
        Report(
            sequence,
            ReplyCodes.FrameError,
            "frame-exceeds-frame-max",
            $"A {FrameTypeName(frame.TypeOctet)} frame on channel {frame.Channel} is {frame.ClaimedSize + AmqpConstants.FrameOverhead} bytes, "
                + $"over frame_max {FrameMax} (payload {frame.ClaimedSize} > {FrameMax - AmqpConstants.FrameOverhead}); RabbitMQ tolerates up to 8 bytes more."
        );

    /// <summary>Reports each other channel's content command this frame interrupts (once per command, in channel-number
    /// order).</summary>
    private void CheckInterleaving(long sequence, ushort channel)
    {
        // The usual cases, answered without enumerating: no command open, or only this channel's.
        if (_midContentCount == 0)
            return;
        if (_midContentCount == 1 && _channels.TryGetValue(channel, out var own) && own.Content is not null)
            return;
        ReportInterleaving(sequence, channel);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportInterleaving(long sequence, ushort channel)
    {
        foreach (
            ChannelState ch in _channels
                .Values.Where(c => c.Number != channel && c.Content is { InterleavingReported: false })
                .OrderBy(c => c.Number)
                .ToList()
        )
        {
            ushort other = ch.Number;
            PendingContent content = ch.Content!;
            content.InterleavingReported = true;
            Report(
                sequence,
                ReplyCodes.UnexpectedFrame,
                "content-interleaved",
                $"A frame on channel {channel} arrived while channel {other}'s basic.publish (method frame #{content.MethodSequence}) "
                    + $"was incomplete ({(content.HeaderReceived ? $"{content.Received} of {content.DeclaredSize} body bytes" : "no header yet")}): "
                    + "legal for RabbitMQ, but a writer that promises whole commands must not interleave them."
            );
        }
    }

    private void Report(long sequence, ushort code, string rule, string message)
    {
        Log.AddFinding(new ProtocolFinding(sequence, code, rule, message, ClosedConnection: false));
        BrokerLog.FindingReported(_logger, Id, code, rule, sequence, message); // Debug: this can come once per frame
    }
}
