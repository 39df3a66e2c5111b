using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The harness sees a writer use its output after disposal returned: a flush it left pending (and did not
/// cancel), or a flush it started later; and does not blame one whose cancelled flush was still unwinding.</summary>
public sealed class DisposalFlushTests
{
    /// <summary>A call parks in a held flush, disposal starts, then the output drains; a second publisher calls
    /// afterwards.</summary>
    private static Scenario DisposeDuringAHeldFlush() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(300)],
                [new CallStep(20)],
            ],
            FaultPlan.Empty,
            Seed: 3
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Dispose,
                ScriptAction.Release,
                ScriptAction.Call(1),
            ],
        };

    [Fact]
    public async Task A_writer_whose_disposal_returns_with_its_flush_still_held_is_caught()
    {
        var result = await WriterLevelRunner.RunAsync(
            ZooWriters.FromName("Zoo:DisposeLeavesCallInFlight")!.Factory,
            DisposeDuringAHeldFlush(),
            UnhurriedSettle.Options
        );
        Assert.True(result.Evidence.Lifecycle!.FlushPendingWhenDisposeReturned);
        Assert.Contains(result.Check(InvariantNames.Lifecycle).Violations, v =>
            v.Rule == "flush-pending-after-dispose"
        );
    }

    [Fact]
    public async Task A_writer_that_flushes_after_disposal_returned_is_caught()
    {
        var flushesLate = FrameWriterFactory.Create(
            "FlushesWhenRefusing",
            c => new FlushesWhenRefusingWriter(c),
            WriterCompletion.AfterFlush
        );
        var result = await WriterLevelRunner.RunAsync(flushesLate, DisposeDuringAHeldFlush(), UnhurriedSettle.Options);
        Assert.Equal(1, result.Evidence.Lifecycle!.FlushesAfterDispose);
        Assert.Contains(result.Check(InvariantNames.Lifecycle).Violations, v => v.Rule == "flush-after-dispose");
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Reference_writers_leave_no_flush_behind(string mode)
    {
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, DisposeDuringAHeldFlush());
        Assert.False(result.Evidence.Lifecycle!.FlushPendingWhenDisposeReturned);
        Assert.Equal(0, result.Evidence.Lifecycle.FlushesAfterDispose);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}: {v}"));
    }

    /// <summary>Correct but for one habit: a call refused after disposal first flushes the output "to be
    /// safe".</summary>
    private sealed class FlushesWhenRefusingWriter(WriterContext context) : IFrameWriter
    {
        private readonly SemaphoreSlim _lock = new(1, 1);
        private int _disposed;

        public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            if (Volatile.Read(ref _disposed) != 0)
            {
                command.Release(context.Pool);
                await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                throw new ObjectDisposedException(nameof(FlushesWhenRefusingWriter));
            }
            await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                var result = await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                command.Release(context.Pool);
                CommandFraming.ThrowIfNotDelivered(result);
            }
            finally
            {
                _lock.Release();
            }
        }

        public async ValueTask DisposeAsync()
        {
            Interlocked.Exchange(ref _disposed, 1);
            await _lock.WaitAsync().ConfigureAwait(false);
            _lock.Release();
        }
    }
}
