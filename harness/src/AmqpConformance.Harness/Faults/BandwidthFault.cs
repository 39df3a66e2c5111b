using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Limits the stream to <see cref="RateKBps"/> kilobytes (1000 bytes) per second (Toxiproxy's
/// <c>bandwidth</c> toxic). Chunks larger than 100 ms worth of bytes go out in 100 ms pieces.</summary>
public sealed record BandwidthFault : Fault
{
    /// <summary>Creates a bandwidth limit.</summary>
    public BandwidthFault(int rateKBps)
    {
        RateKBps = rateKBps;
    }

    /// <summary>The rate in KB/s (1 KB = 1000 bytes, as Toxiproxy counts); at least 1.</summary>
    [JsonPropertyName("rateKBps")]
    public int RateKBps { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + RateKBps;

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        foreach (long r in Smaller(RateKBps, 1))
            yield return this with
            {
                RateKBps = (int)r,
            };
    }

    /// <inheritdoc />
    public override void Validate() => Require(RateKBps, 1, nameof(RateKBps));
}
