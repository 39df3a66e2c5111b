using System.Collections.Concurrent;

namespace AmqpConformance.Properties;

/// <summary>The writers (by identity: <see cref="Harness.Writers.FrameWriterFactory.Identity"/>) whose failure one
/// property has shrunk in this process, with that property and its shrunk counterexample
/// (<see cref="PropertyRunOptions.ShrinkOncePerWriter"/>). Only ever set by a failure, so it cannot make a correct
/// writer fail: it only spares the other properties' shrinking.</summary>
internal static class ShrunkFailures
{
    private static readonly ConcurrentDictionary<object, string> Shrunk = new();
    private static readonly ConcurrentDictionary<object, ConcurrentDictionary<string, bool>> Proven = new();

    /// <summary>The real-time rules whose bound is shortened once broken in full
    /// (<see cref="Running.WriterRunOptions.ProvenRules"/>).</summary>
    public static readonly IReadOnlySet<string> RealTimeRules = new HashSet<string>
    {
        "call-hung",
        "blocked-caller",
        "not-flushed",
        "dispose-hung",
        "case-hung",
    };

    /// <summary>The real-time rules the writer <paramref name="identity"/> has broken in this process.</summary>
    public static IReadOnlySet<string> ProvenRules(object identity) =>
        Proven.TryGetValue(identity, out var rules) ? rules.Keys.ToHashSet() : new HashSet<string>();

    /// <summary>Records the real-time rules among <paramref name="rules"/> that the writer <paramref name="identity"/>
    /// broke.</summary>
    public static void NoteBroken(object identity, IEnumerable<string> rules)
    {
        foreach (string rule in rules.Where(RealTimeRules.Contains))
            Proven.GetOrAdd(identity, _ => new ConcurrentDictionary<string, bool>())[rule] = true;
    }

    /// <summary>"invariant (counterexample)" of the property that shrank a failure of the writer
    /// <paramref name="identity"/>, or null.</summary>
    public static string? Of(object identity) => Shrunk.TryGetValue(identity, out var where) ? where : null;

    /// <summary>Records that <paramref name="invariant"/>'s property shrank a failure of <paramref name="identity"/> to
    /// <paramref name="counterexample"/> (the first such record stays).</summary>
    public static void Add(object identity, string invariant, string counterexample) =>
        Shrunk.TryAdd(identity, $"\"{invariant}\" (shrunk to: {counterexample})");

    /// <summary>Forgets every writer (tests only).</summary>
    internal static void Clear()
    {
        Shrunk.Clear();
        Proven.Clear();
    }
}
