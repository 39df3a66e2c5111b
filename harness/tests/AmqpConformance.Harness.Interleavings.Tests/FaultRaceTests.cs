using AmqpConformance.Harness.Interleavings.Tests.Broken;
using AmqpConformance.Harness.Interleavings.Tests.Support;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Interleavings.Tests;

/// <summary>
/// The fault race (<see cref="FaultRace"/>) under Coyote: the reference writers hold in every interleaving explored,
/// and a writer that lets go of its output before recording the fault is caught, with a trace that replays it. A
/// black-box run reaches that window by chance only (see the broken writer's remarks).
/// </summary>
public sealed class FaultRaceTests
{
    [Theory]
    [InlineData("Background", false)]
    [InlineData("Inline", false)]
    [InlineData("Coalescing", false)]
    [InlineData("Background", true)]
    [InlineData("Inline", true)]
    [InlineData("Coalescing", true)]
    public void A_reference_writer_never_uses_its_output_after_a_failure_whichever_task_wins(
        string mode,
        bool failLater
    )
    {
        var factory = WriterModes.FromName(mode)!;
        InterleavingAssert.Holds(mode, () => FaultRace.RunAsync(factory.CreateWriter, failLater));
    }

    [Theory]
    [InlineData(1u)]
    [InlineData(2u)]
    [InlineData(3u)]
    public void A_writer_that_lets_go_of_its_output_before_recording_the_fault_is_caught_and_replays(uint seed) =>
        InterleavingAssert.CaughtAndReplays(
            () => FaultRace.RunAsync(context => new GateReleasedBeforeFaultWriter(context)),
            seed,
            "after the output failed"
        );
}
