using System.Runtime;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// Warm-up until the JIT is done with what a measurement runs. The benchmarks run with the runtime's default code
/// generation: tiered compilation with dynamic PGO, where a method starts as quickly compiled code, is compiled again
/// with instrumentation once it is hot, and a third time, optimized with what the instrumentation saw. Measured before
/// that settles, a run times the earlier tiers and the compiler working beside it; measured after, it times the code a
/// long-running process (a test run's broker, a CI job) actually runs.
/// </summary>
/// <remarks>Contract: <see cref="UntilSettledAsync"/> runs the pass at least <c>minPasses</c> times, and then until a
/// whole pass (and a pause long enough for the runtime's tiering delay, 100 ms by default, to run out) compiled no
/// method, or <c>maxPasses</c> passes ran; it reports which. With tiered compilation off
/// (<c>DOTNET_TieredCompilation=0</c>) the first pass compiles everything once, fully optimized, and the second
/// compiles nothing.</remarks>
internal static class JitWarmUp
{
    /// <summary>Longer than the runtime's tiering delay (<c>TC_CallCountingDelayMs</c>, 100 ms): background compilation
    /// that a pass queued is started, and counted, before the next pass.</summary>
    private static readonly TimeSpan Pause = TimeSpan.FromMilliseconds(250);

    /// <summary>Runs <paramref name="pass"/> until the JIT compiled nothing during a pass and the pause after
    /// it.</summary>
    public static async Task<WarmUpResult> UntilSettledAsync(Func<Task> pass, int minPasses = 2, int maxPasses = 40)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(minPasses, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxPasses, minPasses);
        long firstCount = JitInfo.GetCompiledMethodCount();
        for (int passes = 1; ; passes++)
        {
            long before = JitInfo.GetCompiledMethodCount();
            await pass();
            await Task.Delay(Pause);
            long compiled = JitInfo.GetCompiledMethodCount() - before;
            if (passes >= minPasses && compiled == 0)
                return new WarmUpResult(passes, JitInfo.GetCompiledMethodCount() - firstCount, Settled: true);
            if (passes >= maxPasses)
                return new WarmUpResult(passes, JitInfo.GetCompiledMethodCount() - firstCount, Settled: false);
        }
    }

    /// <summary>"tiered compilation with dynamic PGO" or "tiered compilation off (fully optimized on first call)", as
    /// the process runs (<c>DOTNET_TieredCompilation</c> wins over the project's setting).</summary>
    public static string CodeGeneration()
    {
        string? variable = Environment.GetEnvironmentVariable("DOTNET_TieredCompilation");
        bool tiered = variable is not null
            ? variable != "0"
            : AppContext.GetData("System.Runtime.TieredCompilation") is not (false or "false" or "False");
        bool pgo = Environment.GetEnvironmentVariable("DOTNET_TieredPGO") != "0";
        return !tiered ? "tiered compilation off (fully optimized on first call)"
            : pgo ? "tiered compilation with dynamic PGO"
            : "tiered compilation without PGO";
    }
}

/// <summary>How a warm-up ended: after how many passes, how many methods the JIT compiled during it, and whether its
/// last pass compiled none (false: it stopped at its cap with the JIT still busy).</summary>
internal readonly record struct WarmUpResult(int Passes, long MethodsCompiled, bool Settled)
{
    /// <summary>"3 passes, 412 methods compiled, settled" (or "..., JIT still compiling").</summary>
    public override string ToString() =>
        $"{Passes} passes, {MethodsCompiled} methods compiled, {(Settled ? "settled" : "JIT still compiling")}";
}
