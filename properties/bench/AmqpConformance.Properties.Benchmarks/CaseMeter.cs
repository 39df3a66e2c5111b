using System.Diagnostics;

namespace AmqpConformance.Properties.Benchmarks;

/// <summary>What a run of cases cost the process, per case: wall time, CPU time (all threads, user and kernel), time
/// the JIT spent compiling, GC pause time, bytes allocated and collections per generation. CPU time depends far less
/// than wall time on what else the machine runs, so it is the figure to compare between builds on a busy
/// machine.</summary>
internal sealed class CaseMeter
{
    private readonly Stopwatch _wall = Stopwatch.StartNew();
    private readonly TimeSpan _cpu = Process.GetCurrentProcess().TotalProcessorTime;
    private readonly TimeSpan _jit = System.Runtime.JitInfo.GetCompilationTime();
    private readonly TimeSpan _pause = GC.GetTotalPauseDuration();
    private readonly long _allocated = GC.GetTotalAllocatedBytes(precise: false);
    private readonly int[] _collections = [GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2)];

    private CaseMeter() { }

    /// <summary>Starts measuring now.</summary>
    public static CaseMeter Start() => new();

    /// <summary>Stops and divides by <paramref name="cases"/>.</summary>
    public Reading Stop(int cases)
    {
        _wall.Stop();
        double n = Math.Max(1, cases);
        return new Reading(
            _wall.Elapsed,
            (Process.GetCurrentProcess().TotalProcessorTime - _cpu).TotalMilliseconds / n,
            (System.Runtime.JitInfo.GetCompilationTime() - _jit).TotalMilliseconds / n,
            (GC.GetTotalPauseDuration() - _pause).TotalMilliseconds / n,
            (GC.GetTotalAllocatedBytes(precise: false) - _allocated) / 1024.0 / n,
            $"{GC.CollectionCount(0) - _collections[0]}/{GC.CollectionCount(1) - _collections[1]}/{GC.CollectionCount(2) - _collections[2]}"
        );
    }

    /// <summary>One measurement, per case except <see cref="Wall"/> and <see cref="Collections"/>.</summary>
    public sealed record Reading(
        TimeSpan Wall,
        double CpuMsPerCase,
        double JitMsPerCase,
        double GcPauseMsPerCase,
        double AllocatedKbPerCase,
        string Collections
    );
}
