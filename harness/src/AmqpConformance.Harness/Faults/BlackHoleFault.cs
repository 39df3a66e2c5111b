using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Once <see cref="AfterBytes"/> bytes went through, drops every further byte while holding the
/// connection open (Toxiproxy's <c>timeout</c> toxic). With <see cref="TimeoutMs"/> &gt; 0 the connection
/// closes that long after the black hole opened; with 0 it stays until the fault is removed
/// (<see cref="FaultyTransport.Release"/>, or deleting the toxic). Removal closes the connection, as
/// Toxiproxy does: bytes were lost, so the stream cannot go on.</summary>
public sealed record BlackHoleFault : Fault
{
    /// <summary>Creates a black hole.</summary>
    public BlackHoleFault(int timeoutMs = 0, long afterBytes = 0)
    {
        TimeoutMs = timeoutMs;
        AfterBytes = afterBytes;
    }

    /// <summary>Milliseconds until the connection closes; 0 = held until removed.</summary>
    [JsonPropertyName("timeoutMs")]
    public int TimeoutMs { get; init; }

    /// <summary>Bytes forwarded before the black hole opens.</summary>
    [JsonPropertyName("afterBytes")]
    public long AfterBytes { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + AfterBytes + (TimeoutMs == 0 ? 1000 : TimeoutMs);

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        foreach (long a in Smaller(AfterBytes))
            yield return this with
            {
                AfterBytes = a,
            };
        if (TimeoutMs == 0)
            yield return this with
            {
                TimeoutMs = 1,
            };
        else
            foreach (long t in Smaller(TimeoutMs, 1))
                yield return this with
                {
                    TimeoutMs = (int)t,
                };
    }

    /// <inheritdoc />
    public override void Validate()
    {
        Require(TimeoutMs, 0, nameof(TimeoutMs));
        Require(AfterBytes, 0, nameof(AfterBytes));
    }
}
