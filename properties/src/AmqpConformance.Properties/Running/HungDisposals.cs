using System.Collections.Concurrent;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Running;

/// <summary>The writers (by <see cref="FrameWriterFactory.Identity"/>) whose DisposeAsync was seen, in this process, to
/// outlive both of its bounds: the case clock's and the factory's <see cref="FrameWriterFactory.DisposeTimeout"/> of
/// real time. Such a writer has shown that its disposal can hang; from then on its disposals are held to the case
/// clock's bound alone, so the cases and shrink candidates after the first hang cost no real-time wait. A writer that
/// always returned in time is never listed, so nothing here can blame a correct one.</summary>
internal static class HungDisposals
{
    private static readonly ConcurrentDictionary<object, string> Seen = new();

    /// <summary>Whether <paramref name="factory"/>'s writers were seen to hang in disposal.</summary>
    public static bool Includes(FrameWriterFactory factory) => Seen.ContainsKey(factory.Identity);

    /// <summary>Records that a writer of <paramref name="factory"/> outlived both disposal bounds in the case
    /// <paramref name="scenario"/>.</summary>
    public static void Add(FrameWriterFactory factory, string scenario) => Seen.TryAdd(factory.Identity, scenario);

    /// <summary>Forgets every writer (tests only).</summary>
    internal static void Clear() => Seen.Clear();
}
