using System.Collections.Concurrent;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary><c>cancel:writeN</c> (<see cref="CancelKind.OnWrite"/>) puts a cancellation, every time, in the window
/// between a writer's check of its caller's token and its write of the call's bytes: a writer that checks, then asks
/// for memory, sees the token uncancelled at the check and cancelled once it holds the memory. A writer that writes
/// such a call all the same and reports success is within the contract; one that lets the cancellation complete the
/// call and writes it anyway (Zoo:ClaimAfterReserve) is caught on every run.</summary>
public sealed class CancelOnWriteTests
{
    private const int Runs = 5;

    private static Scenario OneCall(CancelKind cancel) =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(100, Cancel: cancel), new CallStep(5000)],
            ],
            FaultPlan.Empty
        );

    [Fact]
    public async Task The_cancellation_lands_between_the_check_and_the_write_on_every_run()
    {
        for (int run = 0; run < Runs; run++)
        {
            var seen = new ConcurrentQueue<(bool AtCheck, bool AtWrite)>();
            var factory = FrameWriterFactory.Create("CheckThenWrite", c => new CheckThenWrite(c, seen));
            var result = await WriterLevelRunner.RunAsync(factory, OneCall(CancelKind.OnWrite));
            Assert.Equal([(false, true), (false, false)], seen.ToArray());
            Assert.All(result.Evidence.Calls, c => Assert.Equal(CallOutcome.Succeeded, c.Outcome));
            Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        }
    }

    [Fact]
    public async Task A_writer_that_completes_the_call_in_that_window_and_writes_it_is_caught_on_every_run()
    {
        var entry = ZooWriters.All.Single(e => e.Name == "Zoo:ClaimAfterReserve");
        for (int run = 0; run < Runs; run++)
        {
            var result = await WriterLevelRunner.RunAsync(entry.Factory, OneCall(CancelKind.OnWrite));
            Assert.Contains(result.Check(InvariantNames.Cancellation).Violations, v => v.Rule == "ghost-after-cancel");
        }
        var none = await WriterLevelRunner.RunAsync(entry.Factory, OneCall(CancelKind.None));
        Assert.All(none.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }

    [Theory]
    [InlineData("Zoo:PooledCompletion")]
    [InlineData("Zoo:DedicatedThread")]
    [InlineData("Zoo:GroupCommit")]
    public async Task Correct_queued_writers_hold_with_the_cancellation_in_that_window(string name)
    {
        var entry = ZooWriters.All.Single(e => e.Name == name);
        var result = await WriterLevelRunner.RunAsync(entry.Factory, OneCall(CancelKind.OnWrite));
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }

    [Fact]
    public void The_step_prints_as_cancel_write_n()
    {
        Assert.Equal(
            "100 cancel:write2",
            new CallStep(100, Cancel: CancelKind.OnWrite, CancelAfterFlushes: 2).ToString()
        );
    }

    /// <summary>A background loop that, for each call, checks the token, asks for memory, notes whether the token has
    /// been cancelled meanwhile, and writes and flushes the call whatever it found there (a late cancellation loses to
    /// the write); complete after the flush.</summary>
    private sealed class CheckThenWrite(WriterContext context, ConcurrentQueue<(bool AtCheck, bool AtWrite)> seen)
        : IFrameWriter
    {
        private readonly SemaphoreSlim _one = new(1, 1);

        public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            await _one.WaitAsync(CancellationToken.None).ConfigureAwait(false);
            try
            {
                await Task.Run(() => WriteOnLoopAsync(command, cancellationToken), CancellationToken.None)
                    .ConfigureAwait(false);
            }
            finally
            {
                _one.Release();
            }
        }

        private async Task WriteOnLoopAsync(OutgoingCommand command, CancellationToken cancellationToken)
        {
            try
            {
                bool atCheck = cancellationToken.IsCancellationRequested;
                cancellationToken.ThrowIfCancellationRequested();
                context.Output.GetMemory(command.FramesLength);
                seen.Enqueue((atCheck, cancellationToken.IsCancellationRequested));
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync().ConfigureAwait(false));
            }
            finally
            {
                command.Release(context.Pool);
            }
        }

        public ValueTask DisposeAsync()
        {
            _one.Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
