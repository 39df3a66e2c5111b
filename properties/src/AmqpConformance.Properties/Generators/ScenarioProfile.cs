using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Properties.Generators;

/// <summary>
/// How likely each <see cref="SwarmFeatures"/> feature is in the cases of one property: the properties bias generation
/// towards what their invariant is about, while every case is still judged on every invariant, so nothing a case shows
/// is thrown away. Each number is the probability that a case has the feature.
/// </summary>
public sealed record ScenarioProfile
{
    /// <summary>The profile's name (an invariant's, or "mixed").</summary>
    public required string Name { get; init; }

    /// <summary>See <see cref="SwarmFeatures.Scripted"/>.</summary>
    public double Scripted { get; init; } = 0.5;

    /// <summary>See <see cref="SwarmFeatures.Cancellation"/>.</summary>
    public double Cancellation { get; init; } = 0.4;

    /// <summary>See <see cref="SwarmFeatures.Faults"/>.</summary>
    public double Faults { get; init; } = 0.3;

    /// <summary>See <see cref="SwarmFeatures.Owners"/>.</summary>
    public double Owners { get; init; } = 0.3;

    /// <summary>See <see cref="SwarmFeatures.Headers"/>.</summary>
    public double Headers { get; init; } = 0.3;

    /// <summary>See <see cref="SwarmFeatures.LargeBodies"/>.</summary>
    public double LargeBodies { get; init; } = 0.2;

    /// <summary>See <see cref="SwarmFeatures.ManyPublishers"/>.</summary>
    public double ManyPublishers { get; init; } = 0.3;

    /// <summary>See <see cref="SwarmFeatures.SmallQueue"/>.</summary>
    public double SmallQueue { get; init; } = 0.5;

    /// <summary>See <see cref="SwarmFeatures.SmallThreshold"/>.</summary>
    public double SmallThreshold { get; init; } = 0.3;

    /// <summary>See <see cref="SwarmFeatures.Noise"/>.</summary>
    public double Noise { get; init; } = 0.4;

    /// <summary>See <see cref="SwarmFeatures.Holds"/>.</summary>
    public double Holds { get; init; } = 0.7;

    /// <summary>See <see cref="SwarmFeatures.Dispose"/>.</summary>
    public double Dispose { get; init; } = 0.4;

    /// <summary>See <see cref="SwarmFeatures.Reset"/>.</summary>
    public double Reset { get; init; } = 0.4;

    /// <summary>See <see cref="SwarmFeatures.TransportStall"/>.</summary>
    public double TransportStall { get; init; } = 0.1;

    /// <summary>See <see cref="SwarmFeatures.StallThroughDispose"/>.</summary>
    public double StallThroughDispose { get; init; } = 0.5;

    /// <summary>See <see cref="SwarmFeatures.Methods"/>.</summary>
    public double Methods { get; init; } = 0.3;

    /// <summary>See <see cref="SwarmFeatures.Pipelined"/>.</summary>
    public double Pipelined { get; init; } = 0.2;

    /// <summary>See <see cref="SwarmFeatures.Heartbeats"/>.</summary>
    public double Heartbeats { get; init; } = 0.25;

    /// <summary>How often a case runs two or three writers at once, each on a connection of its own
    /// (<see cref="Scenarios.Scenario.Connections"/>); never in a transport-stalled case, whose memory measurement is
    /// the process's.</summary>
    public double Connections { get; init; } = 0.125;

    /// <summary>The mix of everything, used when every invariant is checked at once (<c>--invariant all</c>, the
    /// self-test).</summary>
    public static ScenarioProfile Mixed { get; } = new() { Name = "mixed" };

    /// <summary>The profile of <paramref name="invariant"/>'s property (the mixed one for an unknown name).</summary>
    public static ScenarioProfile For(string invariant) =>
        invariant switch
        {
            InvariantNames.WireFormat or InvariantNames.CommandShape or InvariantNames.Bodies => Mixed with
            {
                Name = invariant,
                Scripted = 0.3,
                Headers = 0.5,
                LargeBodies = 0.35,
                Noise = 0.3,
            },
            InvariantNames.NoInterleaving or InvariantNames.Order => Mixed with
            {
                Name = invariant,
                ManyPublishers = 0.6,
                Noise = 0.7,
                Holds = 0.8,
                SmallQueue = 0.6,
                Heartbeats = 0.4,
            },
            InvariantNames.Pools => Mixed with { Name = invariant, Owners = 0.7, Cancellation = 0.5, Faults = 0.4 },
            InvariantNames.Faults => Mixed with { Name = invariant, Scripted = 0.6, Faults = 0.8, Reset = 0.7 },
            InvariantNames.Cancellation => Mixed with
            {
                Name = invariant,
                Scripted = 0.7,
                Cancellation = 0.95,
                LargeBodies = 0.3,
                SmallThreshold = 0.5,
            },
            InvariantNames.Backpressure => Mixed with
            {
                Name = invariant,
                Scripted = 0.5,
                SmallQueue = 0.9,
                SmallThreshold = 0.6,
                TransportStall = 0.8,
                Holds = 0.9,
            },
            InvariantNames.Visibility => Mixed with { Name = invariant, Scripted = 0.8, Faults = 0.1, Reset = 0.1 },
            InvariantNames.Lifecycle => Mixed with
            {
                Name = invariant,
                Scripted = 0.9,
                Dispose = 0.9,
                StallThroughDispose = 0.4,
                Holds = 0.9,
                SmallQueue = 0.9,
                ManyPublishers = 0.5,
            },
            _ => Mixed with { Name = invariant },
        };
}
