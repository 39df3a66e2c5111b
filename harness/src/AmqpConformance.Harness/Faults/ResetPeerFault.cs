using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Resets the connection (TCP RST: both peers see "connection reset"). With <see cref="AfterBytes"/>
/// set, the reset comes once exactly that many bytes went through; the partial data before it stays
/// delivered (the broker sees a stream that ends mid-frame). Without it, Toxiproxy's <c>reset_peer</c>:
/// the first data to arrive waits <see cref="TimeoutMs"/>, then the connection resets and that data is lost.</summary>
public sealed record ResetPeerFault : Fault
{
    /// <summary>Creates a reset.</summary>
    public ResetPeerFault(long? afterBytes, int timeoutMs = 0)
    {
        AfterBytes = afterBytes;
        TimeoutMs = timeoutMs;
    }

    /// <summary>Bytes delivered before the reset; null for Toxiproxy's data-triggered reset.</summary>
    [JsonPropertyName("afterBytes")]
    public long? AfterBytes { get; init; }

    /// <summary>Delay before the reset, in milliseconds, counted from the trigger.</summary>
    [JsonPropertyName("timeoutMs")]
    public int TimeoutMs { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + (AfterBytes ?? 0) + TimeoutMs;

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        foreach (long t in Smaller(TimeoutMs))
            yield return this with
            {
                TimeoutMs = (int)t,
            };
        if (AfterBytes is long a)
            foreach (long s in Smaller(a))
                yield return this with
                {
                    AfterBytes = s,
                };
    }

    /// <inheritdoc />
    public override void Validate()
    {
        if (AfterBytes is long a)
            Require(a, 0, nameof(AfterBytes));
        Require(TimeoutMs, 0, nameof(TimeoutMs));
    }
}
