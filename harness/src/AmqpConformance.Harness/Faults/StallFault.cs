using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Once <see cref="AfterBytes"/> bytes went through, stops forwarding (and stops reading, so the
/// writer meets real, bounded backpressure) for <see cref="DurationMs"/>, or, when that is null, until the
/// test releases it (<see cref="FaultyTransport.Release"/>). Fires once. No Toxiproxy equivalent.</summary>
public sealed record StallFault : Fault
{
    /// <summary>Creates a stall.</summary>
    public StallFault(long afterBytes, int? durationMs = null)
    {
        AfterBytes = afterBytes;
        DurationMs = durationMs;
    }

    /// <summary>Bytes forwarded before the stall starts.</summary>
    [JsonPropertyName("afterBytes")]
    public long AfterBytes { get; init; }

    /// <summary>How long the stall lasts; null means until released.</summary>
    [JsonPropertyName("durationMs")]
    public int? DurationMs { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + AfterBytes + (DurationMs ?? 1000);

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        if (DurationMs is null)
            yield return this with
            {
                DurationMs = 0,
            };
        else
            foreach (long d in Smaller(DurationMs.Value))
                yield return this with
                {
                    DurationMs = (int)d,
                };
        foreach (long a in Smaller(AfterBytes))
            yield return this with
            {
                AfterBytes = a,
            };
    }

    /// <inheritdoc />
    public override void Validate()
    {
        Require(AfterBytes, 0, nameof(AfterBytes));
        if (DurationMs is int d)
            Require(d, 0, nameof(DurationMs));
    }
}
