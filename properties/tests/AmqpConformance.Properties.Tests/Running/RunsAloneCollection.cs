namespace AmqpConformance.Properties.Tests.Running;

/// <summary>Tests that need the process to themselves: some count its timers (other tests' cases arm their own), and
/// some rely on the script driver's settles to meet the writer in a definite state, which other test classes' load on
/// the two cores can defeat (a completion the harness observes only after the next step; see the settle in
/// docs/design.md).</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class RunsAloneCollection
{
    /// <summary>The collection's name.</summary>
    public const string Name = "runs alone";
}
