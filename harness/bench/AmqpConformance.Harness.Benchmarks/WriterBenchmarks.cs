using System.Buffers;
using BenchmarkDotNet.Attributes;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>
/// The throughput/allocation matrix under BenchmarkDotNet: every <see cref="Mode"/> x <see cref="BodySize"/> x
/// <see cref="Publishers"/> publishes into the same in-memory <see cref="DiscardingSink"/> the custom runner uses.
/// One invocation creates the writer, runs <see cref="Publishers"/> concurrent publisher tasks that together publish a
/// fixed number of messages (the derived class's OperationsPerInvoke), and disposes the writer (so every byte has
/// reached the sink); BenchmarkDotNet divides by that number, so Mean is time per publish and Allocated is bytes per
/// publish (all threads). The per-invocation cost of creating the writer and starting the tasks is included, amortized.
/// </summary>
/// <remarks>Public and unsealed because BenchmarkDotNet derives its generated runner from the concrete classes. The
/// publishes per invocation differ by body size (OperationsPerInvoke is a constant per method): enough that 16
/// publishers really overlap at small bodies, few enough that a 1 MiB invocation stays well under a second.</remarks>
public abstract class WriterBenchmarks
{
    private BenchMode _mode = BenchMode.Raw;
    private BenchMode.Payloads? _payloads;
    private DiscardingSink? _sink;

    /// <summary>A name from <see cref="BenchMode.All"/>.</summary>
    [Params("Background", "Inline", "Coalescing", "Raw")]
    public string Mode { get; set; } = "Raw";

    /// <summary>Body bytes per publish (the derived class lists the values).</summary>
    public abstract int BodySize { get; set; }

    /// <summary>Concurrent publisher tasks.</summary>
    [Params(1, 4, 16)]
    public int Publishers { get; set; }

    /// <summary>Builds the payloads and starts the sink's drain once per case.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _mode = BenchMode.Named(Mode);
        _payloads = _mode.Prepare(Publishers, BodySize, BenchMode.FrameMax);
        _sink = new DiscardingSink();
    }

    /// <summary>Completes the sink and waits for its drain.</summary>
    [GlobalCleanup]
    public async Task CleanupAsync()
    {
        if (_sink is not null)
            await _sink.DisposeAsync();
    }

    /// <summary>One invocation: <paramref name="publishes"/> publishes (split evenly among the publishers) through a
    /// fresh writer; completes when all are out. Returns the flushes issued.</summary>
    protected Task<long> PublishAsync(int publishes) =>
        _mode.RunAsync(_sink!, ArrayPool<byte>.Shared, BenchMode.FrameMax, _payloads!, publishes / Publishers);
}
