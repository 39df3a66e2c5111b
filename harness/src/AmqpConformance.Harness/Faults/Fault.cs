using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>
/// One fault of a <see cref="FaultPlan"/>, acting on one direction of a connection. Immutable.
/// </summary>
/// <remarks>
/// <para>Byte positions ("after N bytes") count bytes of the fault's direction from the moment the
/// fault first applies: for a plan given to <see cref="FaultyTransport"/> that is the start of the
/// connection; for a toxic added to a running proxy it is the position when it was added.</para>
/// <para>JSON: an object with a <c>"type"</c> discriminator ("latency", "slicer", "bandwidth", "stall",
/// "reset_peer", "limit_data", "black_hole", "slow_close"), <c>"direction"</c> and the fault's own
/// camelCase properties. The names are part of the replay format and do not change.</para>
/// <para>Shrinking: <see cref="ShrinkCandidates"/> yields strictly simpler variants of this fault
/// (smaller numbers), so a failing plan can be reduced to a minimal one.</para>
/// </remarks>
[JsonPolymorphic(
    TypeDiscriminatorPropertyName = "type",
    UnknownDerivedTypeHandling = JsonUnknownDerivedTypeHandling.FailSerialization
)]
[JsonDerivedType(typeof(LatencyFault), "latency")]
[JsonDerivedType(typeof(SlicerFault), "slicer")]
[JsonDerivedType(typeof(BandwidthFault), "bandwidth")]
[JsonDerivedType(typeof(StallFault), "stall")]
[JsonDerivedType(typeof(ResetPeerFault), "reset_peer")]
[JsonDerivedType(typeof(LimitDataFault), "limit_data")]
[JsonDerivedType(typeof(BlackHoleFault), "black_hole")]
[JsonDerivedType(typeof(SlowCloseFault), "slow_close")]
public abstract record Fault
{
    /// <summary>The stream this fault acts on (default upstream: what the writer under test sends).</summary>
    [JsonPropertyName("direction")]
    [JsonPropertyOrder(-1)]
    public FaultDirection Direction { get; init; } = FaultDirection.Upstream;

    /// <summary>A weight for "how complicated" this fault is; plans with a smaller total are simpler.
    /// Every shrink candidate has a strictly smaller complexity than the fault it came from.</summary>
    [JsonIgnore]
    public long Complexity => ComputeComplexity();

    /// <summary>Computes <see cref="Complexity"/>.</summary>
    protected abstract long ComputeComplexity();

    /// <summary>Strictly simpler variants of this fault, simplest first (same type and direction).</summary>
    public abstract IEnumerable<Fault> ShrinkCandidates();

    /// <summary>Throws <see cref="ArgumentException"/> naming the field when a value is out of range.</summary>
    public abstract void Validate();

    /// <summary>Candidate values strictly smaller than <paramref name="value"/> and not below
    /// <paramref name="minimum"/>: the minimum, half-way, and one less.</summary>
    protected static IEnumerable<long> Smaller(long value, long minimum = 0)
    {
        if (value <= minimum)
            yield break;
        yield return minimum;
        long half = minimum + (value - minimum) / 2;
        if (half > minimum && half < value)
            yield return half;
        if (value - 1 > half)
            yield return value - 1;
    }

    /// <summary>Throws when <paramref name="value"/> is below <paramref name="minimum"/>.</summary>
    protected void Require(long value, long minimum, string name)
    {
        if (value < minimum)
            throw new ArgumentException($"{GetType().Name}.{name} must be >= {minimum} (was {value}).", name);
    }
}
