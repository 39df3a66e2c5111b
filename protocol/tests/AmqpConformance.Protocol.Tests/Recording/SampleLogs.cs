using System.Buffers.Binary;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>Builds frame logs the way a broker would: wire offsets advance per direction (the client's stream starts
/// after the 8-byte protocol header), timestamps grow, body frames carry digests and, if captured, payloads.</summary>
internal sealed class SampleLogs
{
    private long _received = AmqpConstants.ProtocolHeader.Length;
    private long _sent;
    private long _ticks;

    public SampleLogs(long connectionId = 7, bool captureBodies = false) =>
        Log = new FrameLog(connectionId, new FrameLogOptions { CaptureBodies = captureBodies });

    public FrameLog Log { get; }

    public FrameRecord Method(FrameDirection direction, ushort channel, IAmqpMethod method) =>
        Add(
            direction,
            FrameType.Method,
            channel,
            MethodCodec.ToPayload(method),
            method.ClassId,
            method.MethodId,
            method.Name
        );

    public FrameRecord Header(ushort channel, ulong bodySize)
    {
        var header = new ContentHeader(bodySize);
        var payload = new byte[header.EncodedLength()];
        header.Encode(payload);
        return Add(
            FrameDirection.Received,
            FrameType.Header,
            channel,
            payload,
            AmqpConstants.BasicClassId,
            0,
            null,
            declaredBodySize: (long)bodySize
        );
    }

    public FrameRecord Body(ushort channel, byte[] body) =>
        Add(FrameDirection.Received, FrameType.Body, channel, body, 0, 0, null, digest: Digest(body));

    public FrameRecord Heartbeat(FrameDirection direction) => Add(direction, FrameType.Heartbeat, 0, [], 0, 0, null);

    /// <summary>A frame with an undefined type octet and a bad frame-end, as a broker records a malformed
    /// frame.</summary>
    public FrameRecord Malformed(byte typeOctet, ushort channel, byte[] payload) =>
        Add(FrameDirection.Received, (FrameType)typeOctet, channel, payload, 0, 0, null, frameEndValid: false);

    /// <summary>A publish of <paramref name="body"/> split at frame_max - 8, as a conforming writer sends it.</summary>
    public void Publish(ushort channel, byte[] body, int frameMax)
    {
        Method(FrameDirection.Received, channel, new BasicPublish { RoutingKey = "q" });
        Header(channel, (ulong)body.Length);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        for (int offset = 0; offset < body.Length; offset += max)
            Body(channel, body[offset..Math.Min(body.Length, offset + max)]);
    }

    public static ulong Digest(ReadOnlySpan<byte> payload) => FrameDigest.Compute(payload);

    public static byte[] Pattern(int length, int seed)
    {
        var bytes = new byte[length];
        for (int i = 0; i < length; i++)
            bytes[i] = (byte)(i * 7 + seed * 13 + (i >> 8));
        return bytes;
    }

    private FrameRecord Add(
        FrameDirection direction,
        FrameType type,
        ushort channel,
        byte[] payload,
        ushort classId,
        ushort methodId,
        string? methodName,
        long? declaredBodySize = null,
        ulong? digest = null,
        bool frameEndValid = true
    )
    {
        ref long offset = ref direction == FrameDirection.Received ? ref _received : ref _sent;
        long wireOffset = offset;
        offset += payload.Length + AmqpConstants.FrameOverhead;
        _ticks += 12_345; // 1.2345 ms per frame, tick precision exercises the timestamp encoding
        bool keepPayload = type != FrameType.Body || Log.Options.CaptureBodies;
        return Log.Append(sequence => new FrameRecord
        {
            Sequence = sequence,
            Direction = direction,
            WireOffset = wireOffset,
            Timestamp = TimeSpan.FromTicks(_ticks),
            Type = type,
            Channel = channel,
            Size = payload.Length,
            ClassId = classId,
            MethodId = methodId,
            MethodName = methodName,
            DeclaredBodySize = declaredBodySize,
            PayloadDigest = digest,
            Payload = keepPayload ? payload : (ReadOnlyMemory<byte>?)null, // the cast matters: a null byte[] converts to empty memory, not to null
            FrameEndValid = frameEndValid,
        });
    }
}
