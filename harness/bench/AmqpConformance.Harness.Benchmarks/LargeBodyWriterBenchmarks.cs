using BenchmarkDotNet.Attributes;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>1 MiB bodies, 1024 publishes per invocation (64 per publisher at 16 publishers).</summary>
[MemoryDiagnoser]
public class LargeBodyWriterBenchmarks : WriterBenchmarks
{
    private const int PublishesPerInvoke = 1024;

    /// <inheritdoc />
    [Params(1 << 20)]
    public override int BodySize { get; set; }

    /// <summary>Time and allocation per publish.</summary>
    [Benchmark(OperationsPerInvoke = PublishesPerInvoke)]
    public Task<long> Publish() => PublishAsync(PublishesPerInvoke);
}
