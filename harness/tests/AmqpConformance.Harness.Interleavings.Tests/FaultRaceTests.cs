using AmqpConformance.Harness.Interleavings.Tests.Broken;
using AmqpConformance.Harness.Interleavings.Tests.Support;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Interleavings.Tests;

/// <summary>
/// The fault race (<see cref="FaultRace"/>) under Coyote: the reference writers hold in every interleaving explored, and a writer
/// that lets go of its output before recording the fault is caught, with a trace that replays it. A black-box run reaches that
/// window by chance only (see the broken writer's remarks).
/// </summary>
public sealed class FaultRaceTests
{
    /// <summary>Interleavings explored per reference writer: each passing one costs ~10 ms (Coyote waits out the pool work it does
    /// not control); the broken writer below is caught within the first 100 on every seed tried.</summary>
    private const uint Iterations = 300;

    [Theory]
    [InlineData("Background", false)]
    [InlineData("Inline", false)]
    [InlineData("Coalescing", false)]
    [InlineData("Background", true)]
    [InlineData("Inline", true)]
    [InlineData("Coalescing", true)]
    public void A_reference_writer_never_uses_its_output_after_a_failure_whichever_task_wins(string mode, bool failLater)
    {
        var factory = WriterModes.FromName(mode)!;
        var result = InterleavingExplorer.Explore(() => FaultRace.RunAsync(factory.CreateWriter, failLater), Iterations);
        Assert.True(result.Bugs.Count == 0, $"{mode}: {result}");
        Assert.Equal((int)Iterations, result.Iterations);
    }

    [Theory]
    [InlineData(1u)]
    [InlineData(2u)]
    [InlineData(3u)]
    public void A_writer_that_lets_go_of_its_output_before_recording_the_fault_is_caught_and_replays(uint seed)
    {
        static Task Race() => FaultRace.RunAsync(context => new GateReleasedBeforeFaultWriter(context));

        var found = InterleavingExplorer.Explore(Race, iterations: 2000, seed);
        Assert.True(found.Bugs.Count > 0, $"seed {seed}: {found}");
        Assert.Contains("after the output failed", found.Bugs[0], StringComparison.Ordinal);

        var replayed = InterleavingExplorer.Replay(Race, found.Trace);
        Assert.True(replayed.Bugs.Count > 0, $"seed {seed}: the trace did not replay the bug ({replayed})");
    }
}
