using System.Collections.Concurrent;
using System.Threading.Tasks.Sources;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A caller whose next call runs from the previous call's completion (<see cref="Scenario.Continuing"/>), and
/// flushes stalled one after another for longer than a write deadline in all, with calls queued behind them; each with
/// the zoo writer that only it catches, and the correct writers holding (docs/decisions.md has the eighth red-team
/// round these came from). Alone in the process, as the other red-team scenario tests are.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class RedTeamEightScenarioTests
{
    private static readonly FrameWriterFactory[] References =
    [
        WriterModes.Background,
        WriterModes.Inline,
        WriterModes.Coalescing,
    ];

    private static Scenario ThreeCalls(bool continuing) =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10), new CallStep(5000), new CallStep(0)],
            ],
            FaultPlan.Empty
        )
        {
            Continuing = continuing,
        };

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_continuing_publisher_makes_its_next_call_inside_the_writers_completion_of_the_previous_one(
        bool continuing
    )
    {
        var entered = new ConcurrentQueue<bool>();
        var probe = FrameWriterFactory.Create("CompletesOnItsOwnThread", c => new CompletesOnItsOwnThread(
            WriterModes.Inline.CreateWriter(c),
            entered
        ));
        var result = await WriterLevelRunner.RunAsync(probe, ThreeCalls(continuing));
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        // The first call is made by the publisher's task; each later one, when continuing, from inside the completion
        // before it.
        Assert.Equal(continuing ? [false, true, true] : [false, false, false], entered.ToArray());
        Assert.Equal(continuing ? 2 : 0, result.Events[RunEvent.CallFromCompletion]);
        Assert.Equal(continuing, ThreeCalls(continuing).ToString().Contains("continuing:p0", StringComparison.Ordinal));
    }

    [Fact]
    public async Task A_delayed_flush_timer_that_clears_its_flag_late_is_caught_by_a_continuing_caller()
    {
        var broken = ZooWriters.FromName("Zoo:DelayedFlushLostWakeup")!.Factory;
        // The call made from inside the timer's signalling arms nothing and is never flushed: it hangs (for the call
        // timeout).
        var quick = new WriterRunOptions { CallTimeout = TimeSpan.FromSeconds(1) };
        var caught = await WriterLevelRunner.RunAsync(broken, ThreeCalls(continuing: true), quick);
        Assert.Contains(caught.CheckAll().SelectMany(v => v.Violations), v => v.Rule == "call-hung");
        // (Without a continuing caller it passes, unless the timer's thread loses the CPU between signalling and
        // clearing its flag while the next call is made on another: rare, but not something a test may assert against
        // on a loaded machine.)
        foreach (var mode in References.Append(ZooWriters.FromName("Zoo:DelayedFlush")!.Factory))
            Assert.All((await WriterLevelRunner.RunAsync(mode, ThreeCalls(continuing: true))).CheckAll(), v =>
                Assert.True(v.Holds, $"{mode.Name}: {v}")
            );
    }

    /// <summary>Six publishers, one call each, all queued behind a held flush; then <paramref name="stalls"/> rounds of
    /// a stall (the pending flush stays stalled 20 s of the case's clock) and a pulse (it completes, the next queued
    /// call's flush is held).</summary>
    private static Scenario QueuedBehindStalls(int stalls) =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [.. Enumerable.Range(0, 6).Select(_ => (IReadOnlyList<CallStep>)[new CallStep(100)])],
            FaultPlan.Empty
        )
        {
            Script =
            [
                ScriptAction.Hold,
                .. Enumerable.Range(0, 6).Select(ScriptAction.Call),
                .. Enumerable.Range(0, stalls).SelectMany(_ => new[] { ScriptAction.Stall, ScriptAction.Pulse }),
                ScriptAction.Release,
            ],
        };

    [Fact]
    public async Task A_write_deadline_counted_from_the_call_is_caught_behind_flushes_stalled_one_after_another_and_a_30_s_write_timeout_holds()
    {
        var broken = ZooWriters.FromName("Zoo:CallDeadlineIncludesWait")!.Factory;
        // Six stalls: 120 s in all, the last calls queued behind four or five of them (80-100 s) when their 90 s run
        // out.
        var result = await WriterLevelRunner.RunAsync(broken, QueuedBehindStalls(6), UnhurriedSettle.Options);
        Assert.Contains(result.CheckAll().SelectMany(v => v.Violations), v => v.Rule == "failed-without-cause");
        // Four stalls (80 s) stay within its deadline.
        Assert.All(
            (await WriterLevelRunner.RunAsync(broken, QueuedBehindStalls(4), UnhurriedSettle.Options)).CheckAll(),
            v => Assert.True(v.Holds, v.ToString())
        );
        // Each flush is stalled once, for 20 s: a write timeout of 30 s per flush, the delayed-flush writer and the
        // references hold.
        foreach (
            var mode in References
                .Append(ZooWriters.FromName("Zoo:WriteTimeout")!.Factory)
                .Append(ZooWriters.FromName("Zoo:DelayedFlush")!.Factory)
        )
        {
            var held = await WriterLevelRunner.RunAsync(mode, QueuedBehindStalls(6), UnhurriedSettle.Options);
            Assert.True(held.Events[RunEvent.LongStall] >= 1, $"{mode.Name}: no flush stalled");
            Assert.All(held.CheckAll(), v => Assert.True(v.Holds, $"{mode.Name}: {v}"));
        }
    }

    /// <summary>A correct writer (the inner one's calls) that completes every call on a pool thread, only once its
    /// caller has registered its continuation (so never at once), with continuations inline (as a plain completion
    /// source has them), and notes for each call whether it was made from inside such a completion.</summary>
    private sealed class CompletesOnItsOwnThread(IFrameWriter inner, ConcurrentQueue<bool> enteredInsideCompletion)
        : IFrameWriter
    {
        [ThreadStatic]
        private static bool t_completing;

        public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            enteredInsideCompletion.Enqueue(t_completing);
            return new ValueTask(new CompletionAfterAwait(inner.WriteAsync(command, cancellationToken).AsTask()), 0);
        }

        public ValueTask DisposeAsync() => inner.DisposeAsync();

        /// <summary>One call's completion: pending until its caller registers a continuation, then completed on a pool
        /// thread once the inner call is, the continuation running inline there.</summary>
        private sealed class CompletionAfterAwait(Task written) : IValueTaskSource
        {
            private ManualResetValueTaskSourceCore<bool> _core;

            public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

            public void GetResult(short token) => _core.GetResult(token);

            public void OnCompleted(
                Action<object?> continuation,
                object? state,
                short token,
                ValueTaskSourceOnCompletedFlags flags
            )
            {
                _core.OnCompleted(continuation, state, token, flags);
                _ = written.ContinueWith(
                    t =>
                    {
                        t_completing = true;
                        try
                        {
                            if (t.IsCanceled)
                                _core.SetException(new OperationCanceledException());
                            else if (t.Exception is { } failure)
                                _core.SetException(failure.InnerException ?? failure);
                            else
                                _core.SetResult(true);
                        }
                        finally
                        {
                            t_completing = false;
                        }
                    },
                    CancellationToken.None,
                    TaskContinuationOptions.None,
                    TaskScheduler.Default
                );
            }
        }
    }
}
