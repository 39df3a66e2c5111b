using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo.QueueFull;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The soak-only zoo: DELIBERATELY BROKEN writers whose bug shows only over a long connection (tens of thousands of
/// calls), so the default gate passes them by design and only a soak (<c>amqp-conformance run --soak</c>, the suites'
/// <c>Category=Soak</c> test) catches them. They are kept out of <see cref="ZooWriters.All"/>, whose self-test expects
/// every broken writer caught by the default suite; <c>--writer Zoo:Name</c> finds them all the same.
/// </summary>
public static class SoakZoo
{
    /// <summary>Every soak-only writer.</summary>
    public static IReadOnlyList<ZooEntry> All { get; } =
    [
        new ZooEntry(
            FrameWriterFactory.Create(
                "Zoo:LeakyInFlightBudget",
                c => new LeakyInFlightBudgetWriter(c),
                WriterCompletion.AfterFlush
            ),
            BugClass.QueueFull,
            "Gives back 8 bytes less of its 256 KiB in-flight byte budget than it reserved per body frame, so after about 30,700 body frames (32,750 one-frame publishes) a call waits for ever (a command reserves at most 16 KiB, so large bodies alone do not exhaust it).",
            "A soak: one connection with tens of thousands of publishes."
        ),
    ];

    /// <summary>The soak-only writer called <paramref name="name"/> (with or without "Zoo:"), case-insensitive, or
    /// null.</summary>
    public static ZooEntry? FromName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return All.FirstOrDefault(e => e.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
            ?? All.FirstOrDefault(e => e.Name.Equals("Zoo:" + name, StringComparison.OrdinalIgnoreCase));
    }
}
