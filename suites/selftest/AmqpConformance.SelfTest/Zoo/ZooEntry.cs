using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>One writer of the zoo.</summary>
/// <param name="Factory">Makes the writer; its name is "Zoo:" + the class name without "Writer".</param>
/// <param name="Class">The class of bug.</param>
/// <param name="Bug">One sentence: the defect.</param>
/// <param name="Trigger">One sentence: the scenario that makes it show.</param>
public sealed record ZooEntry(FrameWriterFactory Factory, BugClass Class, string Bug, string Trigger)
{
    /// <summary>The factory's name.</summary>
    public string Name => Factory.Name;

    /// <summary>Whether the writer is meant to pass (a failure is then a false positive of the harness).</summary>
    public bool IsCorrect => Class == BugClass.Correct;
}
