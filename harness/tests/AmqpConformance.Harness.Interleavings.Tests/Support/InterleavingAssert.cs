namespace AmqpConformance.Harness.Interleavings.Tests.Support;

/// <summary>The two verdicts the interleaving tests give: a correct writer holds in every interleaving explored, and a
/// broken one is caught with a trace that replays the bug.</summary>
public static class InterleavingAssert
{
    /// <summary>Interleavings explored for a writer that must hold: each passing one costs ~10 ms on a quiet machine
    /// (Coyote waits out the pool work it does not control); the broken writers are caught within the first 100 on
    /// every seed tried.</summary>
    public const uint Iterations = 300;

    /// <summary>Interleavings a broken writer may take before it must have been caught.</summary>
    public const uint SearchLimit = 2000;

    /// <summary>Fails unless <paramref name="test"/> finds no bug in <see cref="Iterations"/> interleavings, all of
    /// them run.</summary>
    public static void Holds(string writer, Func<Task> test)
    {
        var result = InterleavingExplorer.Explore(test, Iterations);
        Assert.True(result.Bugs.Count == 0, $"{writer}: {result}");
        Assert.Equal((int)Iterations, result.Iterations);
    }

    /// <summary>Fails unless <paramref name="test"/> finds a bug within <see cref="SearchLimit"/> interleavings from
    /// <paramref name="seed"/> (its report containing <paramref name="expected"/>, when given) and its trace replays
    /// it.</summary>
    public static void CaughtAndReplays(Func<Task> test, uint seed, string? expected = null)
    {
        var found = InterleavingExplorer.Explore(test, SearchLimit, seed);
        Assert.True(found.Bugs.Count > 0, $"seed {seed}: {found}");
        if (expected is not null)
            Assert.Contains(expected, found.Bugs[0], StringComparison.Ordinal);
        var replayed = InterleavingExplorer.Replay(test, found.Trace);
        Assert.True(replayed.Bugs.Count > 0, $"seed {seed}: the trace did not replay the bug ({replayed})");
    }
}
