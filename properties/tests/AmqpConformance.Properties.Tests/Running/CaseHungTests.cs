using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A writer that keeps a harness thread for ever (a WriteAsync that never returns whatever its token says, a
/// callback on a caller's token that never returns) ends its case at <see cref="WriterRunOptions.CaseTimeout"/> with a
/// verdict that names where the harness is stuck, instead of hanging the run.</summary>
public sealed class CaseHungTests
{
    private static readonly WriterRunOptions ShortBound = WriterRunOptions.Default with
    {
        CaseTimeout = TimeSpan.FromSeconds(5),
        CallTimeout = TimeSpan.FromMilliseconds(300),
    };

    /// <summary>Generous: only turns a regression (a run that hangs) into a failure instead of a test that never
    /// ends.</summary>
    private static readonly TimeSpan NoHang = TimeSpan.FromMinutes(2);

    [Fact]
    public Task A_WriteAsync_that_never_returns_ends_the_case_as_hung_and_names_it() =>
        AssertHungAsync(blockInWrite: true, OnePublisher(), "in WriteAsync");

    [Fact]
    public Task A_cancellation_callback_that_never_returns_ends_the_case_as_hung_and_names_it() =>
        // The first call's token is cancelled once it completed and the next call started: its leftover callback then
        // blocks.
        AssertHungAsync(
            blockInWrite: false,
            new Scenario(
                4096,
                ChannelLayout.OwnChannel,
                [
                    [new CallStep(10, Cancel: CancelKind.AfterCompletion), new CallStep(10)],
                ],
                FaultPlan.Empty
            ),
            "cancellation of its token"
        );

    private static async Task AssertHungAsync(bool blockInWrite, Scenario scenario, string stuckIn)
    {
        using var release = new ManualResetEventSlim();
        var factory = FrameWriterFactory.Create(
            "stuck",
            c => new StuckWriter(c, release, blockInWrite),
            WriterCompletion.AfterFlush
        );
        try
        {
            var result = await WriterLevelRunner.RunAsync(factory, scenario, ShortBound).WaitAsync(NoHang);
            Assert.NotNull(result.Evidence.CaseHung);
            Assert.Contains("call 0", result.Evidence.CaseHung, StringComparison.Ordinal);
            Assert.Contains(stuckIn, result.Evidence.CaseHung, StringComparison.Ordinal);
            Assert.Contains(result.Check(InvariantNames.Lifecycle).Violations, v => v.Rule == "case-hung");
        }
        finally
        {
            release.Set(); // lets the stuck harness thread go
        }
    }

    [Fact]
    public async Task A_correct_writer_does_not_come_near_the_bound()
    {
        var result = await WriterLevelRunner.RunAsync(WriterModes.Inline, OnePublisher(), ShortBound);
        Assert.Null(result.Evidence.CaseHung);
        Assert.True(result.Check(InvariantNames.Lifecycle).Holds);
    }

    private static Scenario OnePublisher() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10)],
            ],
            FaultPlan.Empty
        );

    /// <summary>An inline writer that blocks its caller inside WriteAsync until <paramref name="release"/> is set
    /// (ignoring the token), or that leaves on every call's token a callback blocking the same way.</summary>
    private sealed class StuckWriter(WriterContext context, ManualResetEventSlim release, bool blockInWrite)
        : IFrameWriter
    {
        public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            if (blockInWrite)
                release.Wait(CancellationToken.None);
            else
                cancellationToken.Register(() => release.Wait(CancellationToken.None));
            CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
            var flushed = await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            command.Release(context.Pool);
            CommandFraming.ThrowIfNotDelivered(flushed);
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
