using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests;

/// <summary>A known deviation covers a violation only when its client scope and its call scope hold too: the same
/// symptom from another client build, or thrown somewhere else in the client, is still reported.</summary>
public sealed class KnownDeviationScopeTests
{
    private static readonly Scenario Racing = new(
        4096,
        ChannelLayout.OwnChannel,
        [
            [new CallStep(16, Cancel: CancelKind.Racing)],
        ],
        FaultPlan.Empty
    );

    private static readonly Violation Ghost = new("cancellation", "ghost-after-cancel", "ghost", [1], [0]);

    private static readonly KnownDeviation ConfirmWaitGhost = new(
        "ghost-in-confirm-wait",
        "test",
        ["ghost-after-cancel"],
        s => s.Publishers.Any(p => p.Any(step => step.Cancel != CancelKind.None))
    )
    {
        ClientScope = c => c.Version == "7.2.2" && !c.Settings.ContainsKey("Inline"),
        CallScope = c =>
            c.Exception?.StackTrace?.Contains(nameof(WaitForConfirmAsync), StringComparison.Ordinal) == true,
    };

    private sealed class Client(string? version, params string[] settings) : ClientAdapter
    {
        public override string Name => $"client {version}";

        public override string? Version => version;

        public override IReadOnlyDictionary<string, string> Settings { get; } =
            settings.ToDictionary(s => s, _ => "true");

        public override Task<IClientSession> ConnectAsync(
            ClientConnectOptions options,
            CancellationToken cancellationToken
        ) => throw new NotSupportedException();
    }

    private static async Task WaitForConfirmAsync(CancellationToken token) =>
        await Task.Delay(Timeout.Infinite, token).ConfigureAwait(false);

    private static async Task FlushAsync(CancellationToken token) =>
        await Task.Delay(Timeout.Infinite, token).ConfigureAwait(false);

    private static async Task<Exception> ThrownBy(Func<CancellationToken, Task> where)
    {
        try
        {
            await where(new CancellationToken(canceled: true)).ConfigureAwait(false);
        }
        catch (OperationCanceledException e)
        {
            return e;
        }
        throw new InvalidOperationException("did not throw");
    }

    private static ConformanceEvidence EvidenceOfOneCall(Exception? thrown) =>
        new()
        {
            Frames = [],
            FrameMax = 4096,
            Calls =
            [
                new CallRecord
                {
                    Id = 0,
                    Publisher = 0,
                    IndexInPublisher = 0,
                    Channel = 1,
                    ExpectedBody = new byte[16],
                    Started = TimeSpan.Zero,
                    Outcome = CallOutcome.Cancelled,
                    Exception = thrown,
                },
            ],
        };

    [Fact]
    public async Task A_ghost_thrown_in_the_confirm_wait_is_covered()
    {
        var evidence = EvidenceOfOneCall(await ThrownBy(WaitForConfirmAsync));

        Assert.True(ConfirmWaitGhost.Covers(Ghost, Racing, evidence));
    }

    [Fact]
    public async Task The_same_ghost_thrown_in_a_flush_is_reported()
    {
        var evidence = EvidenceOfOneCall(await ThrownBy(FlushAsync));

        Assert.False(ConfirmWaitGhost.Covers(Ghost, Racing, evidence));
        Assert.True(ConfirmWaitGhost.Covers(Ghost, Racing)); // rule and scenario alone would have covered it
    }

    [Fact]
    public void A_call_scoped_deviation_covers_no_violation_that_names_no_call_or_an_unknown_one()
    {
        var evidence = EvidenceOfOneCall(null);

        Assert.False(ConfirmWaitGhost.Covers(Ghost with { Calls = [] }, Racing, evidence));
        Assert.False(ConfirmWaitGhost.Covers(Ghost with { Calls = [7] }, Racing, evidence));
    }

    [Fact]
    public void The_client_scope_takes_version_and_settings()
    {
        Assert.True(ConfirmWaitGhost.AppliesToClient(new Client("7.2.2")));
        Assert.False(ConfirmWaitGhost.AppliesToClient(new Client("8.0.0")));
        Assert.False(ConfirmWaitGhost.AppliesToClient(new Client(null)));
        Assert.False(ConfirmWaitGhost.AppliesToClient(new Client("7.2.2", "Inline")));
        Assert.True(new KnownDeviation("any", "test", ["x"], _ => true).AppliesToClient(new Client(null)));
    }

    [Fact]
    public async Task A_client_level_check_drops_the_deviations_whose_client_scope_refuses_its_client()
    {
        // A client that cannot connect fails its first call (failed-without-cause) in every case: a deviation for
        // that rule hides it only where its scope takes the client.
        var hides = new KnownDeviation("hides-connect-failure", "test", ["failed-without-cause"], _ => true);
        await using var runner = await ClientLevelRunner.StartAsync();
        var options = new PropertyRunOptions
        {
            MaxTest = 3,
            KnownDeviations = [hides with { ClientScope = c => c.Version == "1.0" }],
        };

        var scoped = await ConformanceProperties.CheckAsync(
            new Client("1.0"),
            runner,
            InvariantNames.Cancellation,
            options
        );
        var other = await ConformanceProperties.CheckAsync(
            new Client("2.0"),
            runner,
            InvariantNames.Cancellation,
            options
        );

        Assert.True(scoped.Holds, scoped.Describe());
        Assert.True(scoped.KnownDeviationsSeen["hides-connect-failure"] > 0);
        Assert.False(other.Holds);
        Assert.Contains("failed-without-cause", other.Describe());
    }
}
