using System.Buffers;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.TestSupport;

/// <summary>
/// Bytes a writer produced, cut into frames by the codec's <see cref="FrameReader"/> and recorded as the broker records
/// them (<see cref="FrameRecord"/>s in the received direction, every payload kept), so tests can judge captured output
/// with the harness's own verdicts instead of a parser of their own.
/// </summary>
/// <param name="Frames">The whole frames, in wire order; <see cref="FrameRecord.WireOffset"/> counts from the capture's
/// first byte.</param>
/// <param name="TrailingPartialBytes">Bytes at the end (or from a frame claiming more than 2 GiB on) that are no whole
/// frame.</param>
/// <param name="Findings">"frame-too-large" when a frame header claims more than 2 GiB (reading stops there).</param>
public sealed record CapturedFrames(
    IReadOnlyList<FrameRecord> Frames,
    long TrailingPartialBytes,
    IReadOnlyList<ProtocolFinding> Findings
)
{
    /// <summary>Cuts <paramref name="bytes"/> from <paramref name="skipPrefix"/> (e.g. 8 for a protocol header) into
    /// frames.</summary>
    public static CapturedFrames Parse(byte[] bytes, int skipPrefix = 0)
    {
        ArgumentNullException.ThrowIfNull(bytes);
        var frames = new List<FrameRecord>();
        var findings = new List<ProtocolFinding>();
        var buffer = new ReadOnlySequence<byte>(bytes, skipPrefix, bytes.Length - skipPrefix);
        long offset = skipPrefix;
        while (true)
        {
            FrameReadStatus status = FrameReader.TryReadFrame(ref buffer, int.MaxValue, out RawFrame frame);
            if (status == FrameReadStatus.NeedMoreData)
                break;
            if (status == FrameReadStatus.PayloadTooLarge)
            {
                findings.Add(
                    new ProtocolFinding(
                        -1,
                        501,
                        "frame-too-large",
                        $"The frame at offset {offset} claims {frame.ClaimedSize} payload bytes: the stream is corrupt from there on.",
                        false
                    )
                );
                break;
            }
            frames.Add(Record(frames.Count, offset, frame));
            offset += frame.WireLength;
        }
        return new CapturedFrames(frames, buffer.Length, findings);
    }

    private static FrameRecord Record(long sequence, long offset, in RawFrame frame)
    {
        byte[] payload = frame.Payload.ToArray();
        ushort classId = 0,
            methodId = 0;
        string? methodName = null;
        long? declaredBodySize = null;
        if (frame.Type == FrameType.Method && MethodCodec.TryReadIds(payload, out classId, out methodId))
            methodName = MethodCodec.NameOf(classId, methodId);
        if (frame.Type == FrameType.Header && TryDecodeHeader(payload) is { } header)
        {
            classId = header.ClassId;
            declaredBodySize = (long)header.BodySize;
        }
        return new FrameRecord
        {
            Sequence = sequence,
            Direction = FrameDirection.Received,
            WireOffset = offset,
            Timestamp = TimeSpan.Zero,
            Type = frame.Type,
            Channel = frame.Channel,
            Size = frame.Size,
            ClassId = classId,
            MethodId = methodId,
            MethodName = methodName,
            DeclaredBodySize = declaredBodySize,
            PayloadDigest = frame.Type == FrameType.Body ? FrameDigest.Compute(payload) : null,
            Payload = payload,
            FrameEndValid = frame.EndValid,
        };
    }

    private static ContentHeader? TryDecodeHeader(byte[] payload)
    {
        try
        {
            return ContentHeader.Decode(payload);
        }
        catch (AmqpDecodeException)
        {
            return null; // the verdicts judge the frame from its raw payload
        }
    }
}
