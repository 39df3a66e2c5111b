using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties;
using AmqpConformance.Properties.Clients;
using Xunit.Abstractions;

namespace AmqpConformance.Suites;

/// <summary>
/// The client-level conformance suite: the same invariant properties, run against a whole client (<see cref="Client"/>) that
/// connects over loopback TCP through the embedded fault proxy to the fake broker. Subclass it with your client's
/// <see cref="ClientAdapter"/>. Pools and backpressure are not observable from outside a client, so they are not here.
/// </summary>
/// <remarks>Cases per property: <see cref="DefaultCases"/> (a case opens a real TCP connection), overridden by
/// <c>AMQP_CONFORMANCE_CASES</c>; replay with <c>AMQP_CONFORMANCE_REPLAY</c>.</remarks>
public abstract class ClientConformanceSuite(ITestOutputHelper? output = null)
{
    /// <summary>The client under test.</summary>
    protected abstract ClientAdapter Client { get; }

    /// <summary>Cases per property when neither the environment nor the attribute says otherwise.</summary>
    protected virtual int DefaultCases => 15;

    /// <summary>Violation rules this client is known to break, with the reason (an issue link, a replay): accepted and counted,
    /// never failing a case. Empty by default; list only what you have reported upstream.</summary>
    protected virtual IReadOnlyDictionary<string, string> KnownDeviations { get; } = new Dictionary<string, string>();

    /// <summary>Deviations scoped to the scenarios that show them (see <see cref="ScenarioDeviation"/>), for a client bug whose
    /// symptom is not one stable rule. Empty by default.</summary>
    protected virtual IReadOnlyList<ScenarioDeviation> KnownScenarioDeviations { get; } = [];

    /// <summary>Every frame is well formed and within frame_max.</summary>
    [ConformanceProperty] public Task WireFormat() => VerifyAsync(InvariantNames.WireFormat);

    /// <summary>basic.publish, header with the body's length, body frames of frame_max - 8 summing to it.</summary>
    [ConformanceProperty] public Task CommandShape() => VerifyAsync(InvariantNames.CommandShape);

    /// <summary>Each command's frames are contiguous on the wire, and per channel.</summary>
    [ConformanceProperty] public Task NoInterleaving() => VerifyAsync(InvariantNames.NoInterleaving);

    /// <summary>Call order, publisher order, confirm sequence numbers matching delivery tags.</summary>
    [ConformanceProperty] public Task Order() => VerifyAsync(InvariantNames.Order);

    /// <summary>The caller's bytes at call time, never read after completion.</summary>
    [ConformanceProperty] public Task Bodies() => VerifyAsync(InvariantNames.Bodies);

    /// <summary>Nothing hangs; failures are prompt and clear.</summary>
    [ConformanceProperty] public Task Faults() => VerifyAsync(InvariantNames.Faults);

    /// <summary>Cancellation is all or nothing.</summary>
    [ConformanceProperty] public Task Cancellation() => VerifyAsync(InvariantNames.Cancellation);

    /// <summary>Checks <paramref name="invariant"/>'s property against <see cref="Client"/> and fails the test with a full report if it does not hold.</summary>
    protected async Task VerifyAsync(string invariant, [System.Runtime.CompilerServices.CallerMemberName] string testMethod = "")
    {
        var options = PropertyVerification.OptionsFor(this, testMethod, DefaultCases) with { KnownDeviations = KnownDeviations, KnownScenarioDeviations = KnownScenarioDeviations };
        await using var runner = await ClientLevelRunner.StartAsync().ConfigureAwait(false);
        var outcome = await Task.Run(() => ConformanceProperties.Check(Client, runner, invariant, options)).ConfigureAwait(false);
        PropertyVerification.Report(outcome, GetType().Name, testMethod, output);
    }
}
