using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Properties.Running;

/// <summary>Reads what reached the broker's end of the transport, splits it into frames and appends each to a
/// <see cref="FrameLog"/> (payloads kept), the way a broker's reader would, without judging anything: judging is the checkers'.</summary>
internal sealed class WireRecorder(PipeReader input, FrameLog log, long startOffset = 0)
{
    private readonly List<ProtocolFinding> _findings = [];

    /// <summary>Bytes left over at the end that are not a whole frame (or that follow an unreadable frame).</summary>
    public long TrailingBytes { get; private set; }

    /// <summary>What could not be parsed.</summary>
    public IReadOnlyList<ProtocolFinding> Findings => _findings;

    /// <summary>Records until the input ends or fails. Never throws for transport failures.</summary>
    public async Task RunAsync(CancellationToken cancellationToken)
    {
        long offset = startOffset;
        bool stopped = false;
        while (true)
        {
            ReadResult result;
            try
            {
                result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception)
            {
                break;
            }
            var buffer = result.Buffer;
            while (!stopped)
            {
                var status = FrameReader.TryReadFrame(ref buffer, FrameReader.DefaultUnlimitedPayloadCap, out RawFrame frame);
                if (status == FrameReadStatus.NeedMoreData) break;
                if (status == FrameReadStatus.PayloadTooLarge)
                {
                    _findings.Add(new ProtocolFinding(-1, 501, "malformed-frame", $"A frame at wire offset {offset} claims a {frame.ClaimedSize}-byte payload; parsing stopped there.", false));
                    stopped = true;
                    break;
                }
                long seq = Record(frame, offset);
                offset += frame.WireLength;
                if (status == FrameReadStatus.BadFrameEnd)
                {
                    _findings.Add(new ProtocolFinding(seq, 501, "bad-frame-end", $"Frame {seq} at wire offset {offset - frame.WireLength} ends with 0x{frame.EndOctet:X2}, not 0xCE; parsing stopped there.", false));
                    stopped = true;
                }
            }
            TrailingBytes = buffer.Length;
            input.AdvanceTo(stopped ? buffer.End : buffer.Start, buffer.End);
            if (result.IsCompleted || result.IsCanceled) break;
        }
        try { await input.CompleteAsync().ConfigureAwait(false); } catch (InvalidOperationException) { }
    }

    private long Record(in RawFrame frame, long offset)
    {
        byte[] payload = frame.Payload.ToArray();
        var type = frame.Type;
        ushort classId = 0, methodId = 0;
        long? declared = null;
        string? name = null;
        if (type == FrameType.Method && MethodCodec.TryReadIds(payload, out classId, out methodId))
            name = classId == 60 && methodId == 40 ? "basic.publish" : null;
        else if (type == FrameType.Header && payload.Length >= 12)
        {
            classId = BinaryPrimitives.ReadUInt16BigEndian(payload);
            declared = (long)BinaryPrimitives.ReadUInt64BigEndian(payload.AsSpan(4));
        }
        var now = log.Elapsed;
        ushort channel = frame.Channel;
        int size = frame.Size;
        bool endValid = frame.EndValid;
        return log.Append(seq => new FrameRecord
        {
            Sequence = seq, Direction = FrameDirection.Received, WireOffset = offset, Timestamp = now,
            Type = type, Channel = channel, Size = size, ClassId = classId, MethodId = methodId, MethodName = name,
            DeclaredBodySize = declared, PayloadDigest = type == FrameType.Body ? FrameDigest.Compute(payload) : null,
            Payload = payload, FrameEndValid = endValid,
        }).Sequence;
    }
}
