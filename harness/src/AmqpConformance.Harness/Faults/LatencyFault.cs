using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Delays every chunk by <see cref="LatencyMs"/> +/- <see cref="JitterMs"/> (Toxiproxy's
/// <c>latency</c> toxic). Chunks keep their order; the delay runs from when the chunk was written, so a
/// steady stream is shifted in time, not slowed down.</summary>
public sealed record LatencyFault : Fault
{
    /// <summary>Creates a latency fault.</summary>
    public LatencyFault(int latencyMs, int jitterMs = 0)
    {
        LatencyMs = latencyMs;
        JitterMs = jitterMs;
    }

    /// <summary>The added delay in milliseconds.</summary>
    [JsonPropertyName("latencyMs")]
    public int LatencyMs { get; init; }

    /// <summary>Each chunk's delay varies uniformly within +/- this many milliseconds (seeded).</summary>
    [JsonPropertyName("jitterMs")]
    public int JitterMs { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + LatencyMs + JitterMs;

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        foreach (long j in Smaller(JitterMs))
            yield return this with
            {
                JitterMs = (int)j,
            };
        foreach (long l in Smaller(LatencyMs))
            yield return this with
            {
                LatencyMs = (int)l,
                JitterMs = Math.Min(JitterMs, (int)l),
            };
    }

    /// <inheritdoc />
    public override void Validate()
    {
        Require(LatencyMs, 0, nameof(LatencyMs));
        Require(JitterMs, 0, nameof(JitterMs));
    }
}
