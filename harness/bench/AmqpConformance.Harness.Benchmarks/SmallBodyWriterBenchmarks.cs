using BenchmarkDotNet.Attributes;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>256 B and 16 KiB bodies, 16384 publishes per invocation (1024 per publisher at 16 publishers).</summary>
[MemoryDiagnoser]
public class SmallBodyWriterBenchmarks : WriterBenchmarks
{
    private const int PublishesPerInvoke = 16384;

    /// <inheritdoc />
    [Params(256, 16 * 1024)]
    public override int BodySize { get; set; }

    /// <summary>Time and allocation per publish.</summary>
    [Benchmark(OperationsPerInvoke = PublishesPerInvoke)]
    public Task<long> Publish() => PublishAsync(PublishesPerInvoke);
}
