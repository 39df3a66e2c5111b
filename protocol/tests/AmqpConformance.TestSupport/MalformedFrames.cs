using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport;

/// <summary>
/// Broken frames for the error paths. Each starts from a well-formed frame written by the codec
/// (<see cref="FrameBytes"/>) and breaks exactly one thing, so a test names the fault it injects. Each call returns a
/// new array.
/// </summary>
public static class MalformedFrames
{
    /// <summary><paramref name="frame"/> with its frame-end octet replaced by <paramref name="endOctet"/> (0xCE is the
    /// valid one).</summary>
    public static byte[] WithFrameEnd(byte[] frame, byte endOctet)
    {
        byte[] broken = Copy(frame);
        broken[^1] = endOctet;
        return broken;
    }

    /// <summary>A frame carrying <paramref name="payload"/> and its end octet whose header claims
    /// <paramref name="claimedSize"/> payload bytes instead of the real length.</summary>
    public static byte[] WithClaimedSize(FrameType type, ushort channel, ReadOnlySpan<byte> payload, uint claimedSize)
    {
        byte[] broken = FrameBytes.Frame(type, channel, payload);
        FrameFormat.WriteHeader(broken, type, channel, unchecked((int)claimedSize));
        return broken;
    }

    /// <summary>A frame of type octet <paramref name="typeOctet"/> (one no <see cref="FrameType"/> names, say 7 or 9)
    /// carrying <paramref name="payload"/>, otherwise well formed.</summary>
    public static byte[] UnknownType(byte typeOctet, ushort channel, ReadOnlySpan<byte> payload) =>
        FrameBytes.Frame((FrameType)typeOctet, channel, payload);

    /// <summary>Only the 7-byte header of a frame claiming <paramref name="claimedSize"/> payload bytes, then the first
    /// <paramref name="payloadSent"/> of them: a peer must refuse the claim from the header alone.</summary>
    public static byte[] OversizeClaim(
        FrameType type,
        ushort channel,
        uint claimedSize,
        ReadOnlySpan<byte> payloadSent = default
    ) =>
        Truncated(
            WithClaimedSize(type, channel, payloadSent, claimedSize),
            AmqpConstants.FrameHeaderSize + payloadSent.Length
        );

    /// <summary>The first <paramref name="keep"/> bytes of <paramref name="bytes"/>: a frame (or command) cut
    /// short.</summary>
    public static byte[] Truncated(byte[] bytes, int keep)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(keep, bytes.Length);
        return bytes.AsSpan(0, keep).ToArray();
    }

    /// <summary>A method frame whose payload is the first <paramref name="keep"/> bytes of <paramref name="method"/>'s
    /// encoding (class and method ids included): arguments cut short, the frame itself well formed.</summary>
    public static byte[] CutMethod(ushort channel, IAmqpMethod method, int keep) =>
        FrameBytes.Frame(FrameType.Method, channel, MethodCodec.ToPayload(method).AsSpan(0, keep));

    private static byte[] Copy(byte[] frame)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(frame.Length, AmqpConstants.FrameOverhead);
        return (byte[])frame.Clone();
    }
}
