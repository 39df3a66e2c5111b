using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>Field-by-field comparison of frame records (the record's own equality compares payload memory by
/// reference).</summary>
internal static class FrameRecordAssert
{
    public static void Equal(FrameRecord expected, FrameRecord actual)
    {
        Assert.Equal(expected.Sequence, actual.Sequence);
        Assert.Equal(expected.Direction, actual.Direction);
        Assert.Equal(expected.WireOffset, actual.WireOffset);
        Assert.Equal(expected.Timestamp, actual.Timestamp);
        Assert.Equal(expected.Type, actual.Type);
        Assert.Equal(expected.Channel, actual.Channel);
        Assert.Equal(expected.Size, actual.Size);
        Assert.Equal(expected.ClassId, actual.ClassId);
        Assert.Equal(expected.MethodId, actual.MethodId);
        Assert.Equal(expected.MethodName, actual.MethodName);
        Assert.Equal(expected.DeclaredBodySize, actual.DeclaredBodySize);
        Assert.Equal(expected.PayloadDigest, actual.PayloadDigest);
        Assert.Equal(expected.FrameEndValid, actual.FrameEndValid);
        Assert.Equal(expected.Payload.HasValue, actual.Payload.HasValue);
        if (expected.Payload is { } payload)
            Assert.Equal(payload.ToArray(), actual.Payload!.Value.ToArray());
    }

    public static void Equal(IReadOnlyList<FrameRecord> expected, IReadOnlyList<FrameRecord> actual)
    {
        Assert.Equal(expected.Count, actual.Count);
        for (int i = 0; i < expected.Count; i++)
            Equal(expected[i], actual[i]);
    }
}
