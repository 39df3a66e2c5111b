namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>CPU and GC spent over one measurement (see <see cref="CpuSample"/>): this process's CPU time, its GC pause
/// time, collections of each generation and bytes allocated (all threads, exact), its minor page faults, and RabbitMQ's
/// Erlang VM's CPU time when it could be read.</summary>
internal readonly record struct CpuCost(
    TimeSpan Process,
    TimeSpan GcPause,
    int Gen0,
    int Gen1,
    int Gen2,
    long Allocated,
    long? MinorFaults,
    TimeSpan? Beam
);
