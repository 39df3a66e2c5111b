using System.Text.Json;
using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>
/// A seeded, serialisable description of the transport faults of one connection: what
/// <see cref="FaultyTransport"/> applies in process and, mapped to toxics, what a TCP fault proxy or a
/// real Toxiproxy applies. Immutable; equality is by value (seed and the fault list, in order).
/// </summary>
/// <remarks>
/// <para>Determinism: everything random in applying the plan (slice sizes, jitter) is drawn from a
/// generator seeded with <see cref="Seed"/> and the direction, so the same plan fed the same writes
/// yields the same chunk boundaries, delays and fault points (see <see cref="FaultTranscript"/>).</para>
/// <para>JSON (<see cref="ToJson"/>/<see cref="FromJson"/>): <c>{"seed":1,"faults":[{"type":"latency",
/// "direction":"upstream","latencyMs":5,"jitterMs":0}]}</c>; the names are stable replay format.</para>
/// <para>Shrinking: <see cref="ShrinkCandidates"/> lists strictly simpler plans (fewer faults, then
/// smaller numbers); <see cref="Complexity"/> strictly decreases along it, so shrinking terminates and
/// ends at <see cref="Empty"/> when the failure does not need faults at all.</para>
/// </remarks>
public sealed record FaultPlan
{
    private static readonly JsonSerializerOptions Compact = new() { WriteIndented = false };
    private static readonly JsonSerializerOptions Indented = new() { WriteIndented = true };

    /// <summary>Creates a plan.</summary>
    public FaultPlan(int seed, IReadOnlyList<Fault>? faults = null)
    {
        Seed = seed;
        Faults = faults is null ? [] : [.. faults];
    }

    /// <summary>No faults, seed 0: a perfect transport.</summary>
    public static FaultPlan Empty { get; } = new(0);

    /// <summary>Seeds every random choice the plan makes.</summary>
    [JsonPropertyName("seed")]
    public int Seed { get; init; }

    /// <summary>The faults, in the order they were given (order matters only between faults of the same
    /// kind).</summary>
    [JsonPropertyName("faults")]
    public IReadOnlyList<Fault> Faults { get; init; }

    /// <summary>Whether the plan has no faults.</summary>
    [JsonIgnore]
    public bool IsEmpty => Faults.Count == 0;

    /// <summary>Sum of the faults' complexities plus their count: smaller means simpler.</summary>
    [JsonIgnore]
    public long Complexity => Faults.Sum(f => f.Complexity + 1);

    /// <summary>The faults acting on <paramref name="direction"/>, in plan order.</summary>
    public IReadOnlyList<Fault> For(FaultDirection direction) => [.. Faults.Where(f => f.Direction == direction)];

    /// <summary>Returns a copy with <paramref name="fault"/> appended.</summary>
    public FaultPlan With(Fault fault)
    {
        ArgumentNullException.ThrowIfNull(fault);
        return this with { Faults = [.. Faults, fault] };
    }

    /// <summary>Strictly simpler plans, the most aggressive first: the empty plan, each single fault
    /// removed, each fault replaced by its own simpler variants. The seed is kept (it is not a measure of
    /// simplicity, and keeping it keeps the replay close to the failing run). Lazily enumerated, so an
    /// FsCheck shrinker can stop at the first candidate that still fails.</summary>
    public IEnumerable<FaultPlan> ShrinkCandidates()
    {
        if (Faults.Count == 0)
            yield break;
        if (Faults.Count > 1)
            yield return this with
            {
                Faults = [],
            };
        for (int i = 0; i < Faults.Count; i++)
        {
            int skip = i;
            yield return this with
            {
                Faults = [.. Faults.Where((_, j) => j != skip)],
            };
        }
        for (int i = 0; i < Faults.Count; i++)
        {
            foreach (Fault simpler in Faults[i].ShrinkCandidates())
            {
                var list = Faults.ToArray();
                list[i] = simpler;
                yield return this with
                {
                    Faults = list,
                };
            }
        }
    }

    /// <summary>Throws <see cref="ArgumentException"/> naming the first fault field out of range.</summary>
    public void Validate()
    {
        for (int i = 0; i < Faults.Count; i++)
        {
            Fault f = Faults[i] ?? throw new ArgumentException($"Fault #{i} is null.", nameof(Faults));
            try
            {
                f.Validate();
            }
            catch (ArgumentException e)
            {
                throw new ArgumentException($"Fault #{i} ({f}): {e.Message}", nameof(Faults), e);
            }
        }
    }

    /// <summary>The plan as JSON (compact by default).</summary>
    public string ToJson(bool indented = false) => JsonSerializer.Serialize(this, indented ? Indented : Compact);

    /// <summary>Reads a plan written by <see cref="ToJson"/>; throws <see cref="FormatException"/> with the
    /// reason when the text is not a valid plan (bad JSON, unknown fault type, values out of range).</summary>
    public static FaultPlan FromJson(string json)
    {
        ArgumentNullException.ThrowIfNull(json);
        FaultPlan? plan;
        try
        {
            plan = JsonSerializer.Deserialize<FaultPlan>(json, Compact);
        }
        catch (JsonException e)
        {
            throw new FormatException($"Not a fault plan: {e.Message}", e);
        }
        if (plan is null)
            throw new FormatException("Not a fault plan: the JSON is null.");
        if (plan.Faults is null)
            plan = plan with { Faults = [] };
        try
        {
            plan.Validate();
        }
        catch (ArgumentException e)
        {
            throw new FormatException($"Invalid fault plan: {e.Message}", e);
        }
        return plan;
    }

    /// <inheritdoc />
    public bool Equals(FaultPlan? other) =>
        other is not null && Seed == other.Seed && Faults.SequenceEqual(other.Faults);

    /// <inheritdoc />
    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.Add(Seed);
        foreach (Fault f in Faults)
            hash.Add(f);
        return hash.ToHashCode();
    }

    /// <summary>The plan as compact JSON, the form a report prints for replay.</summary>
    public override string ToString() => ToJson();
}
