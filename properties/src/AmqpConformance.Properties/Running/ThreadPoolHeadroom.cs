namespace AmqpConformance.Properties.Running;

/// <summary>
/// Makes sure the thread pool starts threads at once for the first few work items a check queues beyond its cores,
/// instead of waiting for the pool to notice it is starved. Why: a test host blocks pool threads of its own while a
/// suite runs (VSTest's message loop, the xunit adapter's assembly runner, and a test that waits for a synchronous
/// <see cref="ConformanceProperties.Check(Harness.Writers.FrameWriterFactory, string, PropertyRunOptions?)"/>), which
/// on a 2-core machine is more than the pool's default minimum of one thread per core. Every task a case then queues
/// (the writer's loop, the broker's receive and write loops, the case's driver) waited for the pool to add threads, a
/// few a second: the first property of a suite took 4.5-5 s instead of 1 s, and a case's real-time bounds saw the
/// waits. Each check raises the minimum to <see cref="Headroom"/> threads more than the cores if it is lower, and never
/// lowers it: a process that asked for more keeps it.
/// </summary>
internal static class ThreadPoolHeadroom
{
    /// <summary>Worker threads the pool starts without delay beyond one per core: the test host's blocked threads
    /// (three, above) and the tasks a case with two connections has ready at once. Measured on a 2-core machine (the
    /// Background backpressure property alone, 100 cases): a minimum of 2 (the default) 4.5-5.1 s, 3 3.3 s, 4 1.7 s,
    /// 6 1.0 s, 8 1.1 s (docs/benchmarks.md).</summary>
    public const int Headroom = 8;

    /// <summary>Raises the pool's minimum worker threads to the cores plus <see cref="Headroom"/> if it is lower.
    /// Returns the minimum now in force.</summary>
    public static int Ensure()
    {
        ThreadPool.GetMinThreads(out int workers, out int completionPorts);
        int wanted = Environment.ProcessorCount + Headroom;
        if (workers < wanted)
        {
            ThreadPool.SetMinThreads(wanted, completionPorts);
            ThreadPool.GetMinThreads(out workers, out _);
        }
        return workers;
    }
}
