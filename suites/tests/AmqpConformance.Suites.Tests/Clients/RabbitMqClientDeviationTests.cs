using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Scenarios;
using AmqpConformanceTests;

namespace AmqpConformance.Suites.Tests.Clients;

/// <summary>The template's known deviations of RabbitMQ.Client are scoped to their cause: the 7.x release line, and
/// for the ghost publish, a cancellation thrown in the confirm wait. PR #1912's inline writer throws its ghosts'
/// cancellation in a flush (InlineSocketFrameHandler -> PipeWriter.FlushAsync); those are reported.</summary>
public sealed class RabbitMqClientDeviationTests
{
    private static readonly Scenario RacingWithConfirms = new(
        4096,
        ChannelLayout.OwnChannel,
        [
            [new CallStep(16, Cancel: CancelKind.Racing)],
        ],
        FaultPlan.Empty
    );

    private static readonly Violation Ghost = new("cancellation", "ghost-after-cancel", "ghost", [1], [0]);

    private static Properties.KnownDeviation Deviation(string name) =>
        RabbitMqClientConformance.Deviations.Single(d => d.Name == name);

    private sealed class OtherRelease : ClientAdapter
    {
        public override string Name => "RabbitMQ.Client 8.0.0";

        public override string? Version => "8.0.0";

        public override Task<IClientSession> ConnectAsync(
            ClientConnectOptions options,
            CancellationToken cancellationToken
        ) => throw new NotSupportedException();
    }

    // Named as the methods RabbitMQ.Client's cancellations come from (7.2.2's confirm wait; PR #1912's inline flush).
    private static async Task MaybeWaitForConfirmationAsync(CancellationToken token) =>
        await Task.Delay(Timeout.Infinite, token).ConfigureAwait(false);

    private static async Task FlushAsyncInternal(CancellationToken token) =>
        await Task.Delay(Timeout.Infinite, token).ConfigureAwait(false);

    private static async Task<ConformanceEvidence> GhostCancelledIn(Func<CancellationToken, Task> where)
    {
        Exception? thrown = null;
        try
        {
            await where(new CancellationToken(canceled: true)).ConfigureAwait(false);
        }
        catch (OperationCanceledException e)
        {
            thrown = e;
        }
        return new ConformanceEvidence
        {
            Frames = [],
            FrameMax = 4096,
            ConfirmsEnabled = true,
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
                    Exception = Assert.IsAssignableFrom<OperationCanceledException>(thrown),
                },
            ],
        };
    }

    [Fact]
    public async Task The_7x_ghost_in_the_confirm_wait_stays_accepted()
    {
        var ghost = Deviation("ghost-publish-after-cancel");
        var evidence = await GhostCancelledIn(MaybeWaitForConfirmationAsync);

        Assert.True(ghost.AppliesToClient(new RabbitMqClientAdapter()), RabbitMqClientAdapter.ClientVersion);
        Assert.True(ghost.Covers(Ghost, RacingWithConfirms, evidence));
    }

    [Fact]
    public async Task The_inline_writers_ghost_in_a_flush_is_reported()
    {
        var ghost = Deviation("ghost-publish-after-cancel");
        var evidence = await GhostCancelledIn(FlushAsyncInternal);

        Assert.False(ghost.Covers(Ghost, RacingWithConfirms, evidence));
    }

    [Fact]
    public void No_deviation_is_accepted_for_another_release_line()
    {
        Assert.All(RabbitMqClientConformance.Deviations, d =>
            Assert.False(d.AppliesToClient(new OtherRelease()), d.Name)
        );
    }
}
