using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using Xunit;

namespace AmqpConformance.Properties.Tests.Running;

public sealed class BodyPatternTests
{
    [Fact]
    public void The_same_seed_and_call_give_the_same_bytes()
    {
        Assert.Equal(BodyPattern.Create(7, 3, 10_001), BodyPattern.Create(7, 3, 10_001));
    }

    [Fact]
    public void Another_call_or_seed_gives_other_bytes()
    {
        var body = BodyPattern.Create(7, 3, 64);
        Assert.NotEqual(body, BodyPattern.Create(7, 4, 64));
        Assert.NotEqual(body, BodyPattern.Create(8, 3, 64));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(8)]
    [InlineData(9)]
    [InlineData(131_073)]
    public void A_body_has_the_length_asked_for_and_a_shorter_one_is_its_prefix(int length)
    {
        var body = BodyPattern.Create(42, 1, length);
        Assert.Equal(length, body.Length);
        Assert.Equal(BodyPattern.Create(42, 1, length + 5).AsSpan(0, length).ToArray(), body);
    }

    [Fact]
    public void No_body_carries_the_poison_byte_and_the_bytes_are_spread()
    {
        var counts = new int[256];
        for (int call = 0; call < 64; call++)
            foreach (byte b in BodyPattern.Create(1234, call, 4096))
                counts[b]++;
        Assert.Equal(0, counts[CallRecord.PoisonByte]);
        // 262,144 bytes over 255 values: about 1,028 each (the stand-in twice that); a broken generator (zeros, a short
        // cycle) is far off.
        Assert.All(
            Enumerable.Range(0, 256).Where(v => v != CallRecord.PoisonByte && v != BodyPattern.PoisonStandIn),
            v => Assert.InRange(counts[v], 800, 1_260)
        );
    }

    [Fact]
    public void A_negative_length_is_refused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => BodyPattern.Create(1, 1, -1));
    }
}
