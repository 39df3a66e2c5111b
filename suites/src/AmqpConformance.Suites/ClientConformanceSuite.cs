using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties;
using AmqpConformance.Properties.Clients;
using Xunit;
#if !XUNIT_V3
using Xunit.Abstractions; // xunit 2; in xunit v3, ITestOutputHelper is in Xunit
#endif

namespace AmqpConformance.Suites;

/// <summary>
/// The client-level conformance suite: the invariant properties, run against a whole client (<see cref="Client"/>) that
/// connects over loopback TCP through the embedded fault proxy to the fake broker. Subclass it with your client's
/// <see cref="ClientAdapter"/>. Pools, backpressure, visibility and lifecycle are not observable from outside a client,
/// so they are not here.
/// </summary>
/// <remarks>
/// <para>Cases per property: <see cref="DefaultCases"/> (a case opens a real TCP connection), overridden by
/// <c>AMQP_CONFORMANCE_CASES</c>; replay with <c>AMQP_CONFORMANCE_REPLAY</c>. The cases cover confirms on and off,
/// bursts of publishes larger than a client's write queue while the proxy stalls, cancellation racing the call and
/// during the stall, resets, closes, slicing and latency.</para>
/// <para>Known deviations (<see cref="KnownDeviations"/>) cover only the symptom they name;
/// <see cref="KnownDeviationsStillReproduce"/> replays each one's pinned scenario and reports those that no longer show
/// as stale (a failure when <c>AMQP_CONFORMANCE_STRICT_DEVIATIONS=1</c>), so a fixed upstream defect is noticed.</para>
/// </remarks>
public abstract class ClientConformanceSuite(ITestOutputHelper? output = null)
{
    /// <summary>The environment variable that turns stale known deviations into a failure.</summary>
    public const string StrictDeviationsVariable = "AMQP_CONFORMANCE_STRICT_DEVIATIONS";

    /// <summary>How many times a deviation's pinned scenario is run before it is called stale (its symptom may depend
    /// on timing).</summary>
    protected virtual int ReproductionAttempts => 5;

    /// <summary>The client under test.</summary>
    protected abstract ClientAdapter Client { get; }

    /// <summary>Cases per property when neither the environment nor the attribute says otherwise.</summary>
    protected virtual int DefaultCases => 50;

    /// <summary>Defects of this client you have reported upstream and accept for now, each scoped to its symptom's
    /// rules and the scenarios that cause it. Empty by default.</summary>
    protected virtual IReadOnlyList<KnownDeviation> KnownDeviations { get; } = [];

    /// <summary>Every frame is well formed and within frame_max.</summary>
    [ConformanceProperty]
    public Task WireFormat() => VerifyAsync(InvariantNames.WireFormat);

    /// <summary>basic.publish, header with the body's length, body frames of frame_max - 8 summing to it.</summary>
    [ConformanceProperty]
    public Task CommandShape() => VerifyAsync(InvariantNames.CommandShape);

    /// <summary>Each command's frames are contiguous on the wire, and per channel.</summary>
    [ConformanceProperty]
    public Task NoInterleaving() => VerifyAsync(InvariantNames.NoInterleaving);

    /// <summary>Call order, publisher order, confirm sequence numbers matching delivery tags.</summary>
    [ConformanceProperty]
    public Task Order() => VerifyAsync(InvariantNames.Order);

    /// <summary>The caller's bytes at call time, never read after completion.</summary>
    [ConformanceProperty]
    public Task Bodies() => VerifyAsync(InvariantNames.Bodies);

    /// <summary>Nothing hangs; failures are prompt and clear.</summary>
    [ConformanceProperty]
    public Task Faults() => VerifyAsync(InvariantNames.Faults);

    /// <summary>Cancellation is all or nothing.</summary>
    [ConformanceProperty]
    public Task Cancellation() => VerifyAsync(InvariantNames.Cancellation);

    /// <summary>The fake broker, validating like RabbitMQ (strict profile), accepts every byte.</summary>
    [ConformanceProperty]
    public Task Broker() => VerifyAsync(InvariantNames.Broker);

    /// <summary>Each known deviation's pinned scenario still shows it; a deviation that no longer does is stale
    /// (reported, and a failure under <c>AMQP_CONFORMANCE_STRICT_DEVIATIONS=1</c>).</summary>
    [Fact]
    public async Task KnownDeviationsStillReproduce()
    {
        await using var runner = await ClientLevelRunner.StartAsync().ConfigureAwait(false);
        var stale = new List<string>();
        foreach (var deviation in KnownDeviations.Where(d => d.Reproduction is not null))
        {
            if (!deviation.AppliesToClient(Client))
            {
                output?.WriteLine($"{deviation.Name}: not for {Client.Name} (its client scope), not replayed.");
                continue;
            }
            bool seen = false;
            for (int attempt = 1; attempt <= ReproductionAttempts && !seen; attempt++)
            {
                var result = await runner.RunAsync(Client, deviation.Reproduction!).ConfigureAwait(false);
                seen = result
                    .CheckAll()
                    .SelectMany(v => v.Violations)
                    .Any(v => deviation.Covers(v, deviation.Reproduction!, result.Evidence));
                if (seen)
                    output?.WriteLine(
                        $"{deviation.Name}: still reproduces (attempt {attempt}): {deviation.Reproduction}"
                    );
            }
            if (!seen)
                stale.Add(deviation.Name);
        }
        foreach (string name in stale)
            output?.WriteLine(
                $"STALE: {name} did not show in {ReproductionAttempts} runs of its reproduction; if the client fixed it, remove it from KnownDeviations."
            );
        if (stale.Count > 0 && Environment.GetEnvironmentVariable(StrictDeviationsVariable) == "1")
            throw new ConformanceViolationException(
                $"Known deviations no longer reproduce ({StrictDeviationsVariable}=1): {string.Join(", ", stale)}."
            );
    }

    /// <summary>Checks <paramref name="invariant"/>'s property against <see cref="Client"/> and fails the test with a
    /// full report if it does not hold.</summary>
    protected async Task VerifyAsync(
        string invariant,
        [System.Runtime.CompilerServices.CallerMemberName] string testMethod = ""
    )
    {
        var options = PropertyVerification.OptionsFor(this, testMethod, invariant, DefaultCases) with
        {
            KnownDeviations = KnownDeviations,
        };
        await using var runner = await ClientLevelRunner.StartAsync().ConfigureAwait(false);
        // The check runs on a thread of its own, its one sync boundary (FsCheck is synchronous): nothing here blocks.
        var outcome = await ConformanceProperties.CheckAsync(Client, runner, invariant, options).ConfigureAwait(false);
        PropertyVerification.Report(outcome, options, output);
    }
}
