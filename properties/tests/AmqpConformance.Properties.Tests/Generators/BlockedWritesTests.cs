using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Tests.Generators;

/// <summary>One stalled client case in four has a blocked write (<see cref="BlockedWrites"/>): publisher 0 first
/// publishes more than a stalled proxy's connection takes in, cancelled on a flush; the other cases are as they
/// were.</summary>
public sealed class BlockedWritesTests
{
    private static readonly Scenario[] Client = ScenarioGenerators.ClientScenario.Sample(
        200,
        new Rnd(20_261_207UL),
        300
    );

    private static bool HasBlockedWrite(Scenario s) =>
        s.Publishers[0][0] is { Cancel: CancelKind.OnFlush, MethodOnly: false, WithoutToken: false } first
        && first.BodyLength >= BlockedWrites.Body.Min
        && first.BodyLength <= BlockedWrites.Body.Max;

    [Fact]
    public void One_stalled_client_case_in_four_blocks_a_write_and_cancels_it_on_a_flush()
    {
        var stalled = Client.Where(s => s.StallUntilQuiet).ToList();
        int blocked = stalled.Count(HasBlockedWrite);

        Assert.InRange(blocked, stalled.Count / 8, stalled.Count / 2);
        Assert.InRange(Client.Count(s => !s.StallUntilQuiet && HasBlockedWrite(s)), 0, Client.Length / 50);
    }

    [Fact]
    public void A_blocked_write_replaces_only_the_first_call_of_publisher_0()
    {
        IReadOnlyList<IReadOnlyList<CallStep>> publishers =
        [
            [new CallStep(10, Cancel: CancelKind.Racing, WithoutToken: false), new CallStep(20)],
            [new CallStep(30, WithoutToken: true)],
        ];

        var result = BlockedWrites.Into(publishers, 400_000);

        Assert.Equal(new CallStep(400_000, Cancel: CancelKind.OnFlush), result[0][0]);
        Assert.Equal(publishers[0][1], result[0][1]);
        Assert.Equal(publishers[1], result[1]);
    }
}
