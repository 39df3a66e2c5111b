using System.Globalization;

namespace AmqpConformance.Properties.Running;

/// <summary>How often each <see cref="RunEvent"/> occurred: in one run, or summed over many. Thread-safe.</summary>
public sealed class RunEvents
{
    private static readonly RunEvent[] Kinds = Enum.GetValues<RunEvent>();
    private readonly long[] _counts = new long[Kinds.Length];

    /// <summary>Every event kind, in report order.</summary>
    public static IReadOnlyList<RunEvent> All => Kinds;

    /// <summary>The stable name of <paramref name="kind"/> used in reports and JSON, such as
    /// "cancel-while-parked".</summary>
    public static string NameOf(RunEvent kind) =>
        string.Concat(
            kind.ToString()
                .Select(
                    (c, i) =>
                        char.IsUpper(c) && i > 0
                            ? "-" + char.ToLowerInvariant(c)
                            : char.ToLowerInvariant(c).ToString(CultureInfo.InvariantCulture)
                )
        );

    /// <summary>How many times <paramref name="kind"/> occurred.</summary>
    public long this[RunEvent kind] => Interlocked.Read(ref _counts[(int)kind]);

    /// <summary>Counts one occurrence of <paramref name="kind"/>.</summary>
    public void Add(RunEvent kind) => Interlocked.Increment(ref _counts[(int)kind]);

    /// <summary>Adds every count of <paramref name="other"/> to this one.</summary>
    public void Add(RunEvents other)
    {
        ArgumentNullException.ThrowIfNull(other);
        foreach (var kind in Kinds)
            Interlocked.Add(ref _counts[(int)kind], other[kind]);
    }

    /// <summary>The counts by name, in report order.</summary>
    public IReadOnlyDictionary<string, long> ToDictionary() => Kinds.ToDictionary(NameOf, k => this[k]);

    /// <summary>"cancel-while-parked=3 cancel-during-flush=0 ...".</summary>
    public override string ToString() => string.Join(' ', Kinds.Select(k => $"{NameOf(k)}={this[k]}"));
}
