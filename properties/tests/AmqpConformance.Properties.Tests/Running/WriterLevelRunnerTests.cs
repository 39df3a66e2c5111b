using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol;
using AmqpConformance.SelfTest;

namespace AmqpConformance.Properties.Tests.Running;

public sealed class WriterLevelRunnerTests
{
    private static Scenario TwoPublishers(FaultPlan? faults = null) =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(0), new CallStep(4089, SliceOffset: 7, SliceSlack: 3)],
                [new CallStep(10_000, HeaderBytes: 300, WithBodyOwner: true)],
            ],
            faults ?? FaultPlan.Empty,
            Seed: 5
        );

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task A_reference_writer_puts_every_call_on_the_wire_and_holds_every_invariant(string mode)
    {
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, TwoPublishers());
        var e = result.Evidence;
        Assert.Equal(3, e.Calls.Count);
        Assert.All(e.Calls, c => Assert.Equal(CallOutcome.Succeeded, c.Outcome));
        // 3 methods + 3 headers + (0 + 2 + 3) body frames.
        Assert.Equal(11, e.Frames.Count);
        Assert.Equal(5, e.Frames.Count(f => f.Type == FrameType.Body));
        Assert.True(
            e.OutputWireOffset > 8,
            "the protocol header and the harness's handshake come before the writer's bytes"
        );
        Assert.Equal(e.OutputWireOffset, e.Frames[0].WireOffset);
        Assert.NotNull(e.Pool);
        Assert.True(e.Pool.Rents >= 3);
        Assert.Empty(e.Findings);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        var owned = Assert.Single(e.Calls, c => c.HasBodyOwner);
        Assert.Equal(1, owned.BodyOwnerDisposals);
    }

    [Fact]
    public async Task A_reset_is_recorded_as_a_fault_and_the_calls_fail_clearly()
    {
        var result = await WriterLevelRunner.RunAsync(
            WriterModes.Inline,
            TwoPublishers(new FaultPlan(1, [new ResetPeerFault(100)]))
        );
        var fault = Assert.IsType<TransportFaultRecord>(result.Evidence.Fault);
        Assert.Contains("reset", fault.Description, StringComparison.Ordinal);
        Assert.All(result.Evidence.Calls.Where(c => c.Outcome == CallOutcome.Failed), c =>
            Assert.StartsWith("FrameWriterFaultedException", c.Error, StringComparison.Ordinal)
        );
        Assert.True(
            result.Evidence.Frames.Sum(f => f.WireLength) <= 100,
            "nothing past the reset point reaches the broker"
        );
        Assert.True(result.Check(InvariantNames.Faults).Holds, result.Check(InvariantNames.Faults).ToString());
        Assert.True(result.Check(InvariantNames.Pools).Holds, result.Check(InvariantNames.Pools).ToString());
    }

    [Fact]
    public async Task A_writer_that_reads_bodies_after_completion_is_seen_through_the_poison()
    {
        var result = await WriterLevelRunner.RunAsync(
            BrokenWriterModes.EarlyCompletion,
            new Scenario(
                4096,
                ChannelLayout.OwnChannel,
                [
                    [new CallStep(50)],
                ],
                FaultPlan.Empty
            )
        );
        var verdict = result.Check(InvariantNames.Bodies);
        Assert.Contains(verdict.Violations, v => v.Rule == "read-after-completion");
    }

    [Fact]
    public async Task A_cancellation_on_the_first_flush_cancels_or_completes_the_call_whole()
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(9000, Cancel: CancelKind.OnFlush), new CallStep(1, Cancel: CancelKind.Before)],
            ],
            FaultPlan.Empty
        );
        var result = await WriterLevelRunner.RunAsync(WriterModes.Inline, scenario);
        Assert.Equal(CallOutcome.Cancelled, result.Evidence.Calls[1].Outcome);
        Assert.True(result.Check(InvariantNames.Cancellation).Holds);
        var torn = await WriterLevelRunner.RunAsync(BrokenWriterModes.TornCancellation, scenario);
        Assert.False(torn.Check(InvariantNames.Cancellation).Holds);
    }

    [Fact]
    public async Task A_stalled_run_measures_held_memory_and_then_completes()
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [.. Enumerable.Repeat(new CallStep(20_000), 10)],
                [new CallStep(1)],
            ],
            FaultPlan.Empty,
            StallUntilQuiet: true
        );
        var result = await WriterLevelRunner.RunAsync(WriterModes.Background, scenario);
        var sample = Assert.IsType<BackpressureSample>(result.Evidence.Backpressure);
        Assert.True(sample.PeakBytesHeld > 0);
        Assert.True(sample.PeakBytesHeld <= sample.BoundBytes, sample.ToString());
        Assert.All(result.Evidence.Calls, c => Assert.Equal(CallOutcome.Succeeded, c.Outcome));
    }

    [Fact]
    public async Task A_stalled_run_waits_for_publishers_the_scheduler_held_back()
    {
        // A loaded machine can keep a publisher off the CPU before its first call while the writer, given nothing yet, settles;
        // the sample must not stop there. The hold is a count of thread-pool trips, several times the two settles that ended
        // the sample before, so it is the order of events that is under test, not time.
        var options = WriterRunOptions.Default with
        {
            BeforePublisherRuns = async _ =>
            {
                for (int i = 0; i < 64; i++)
                    await Task.Yield();
            },
        };
        var scenario = new Scenario(
            4096,
            ChannelLayout.Mixed,
            [
                [new CallStep(20_000), new CallStep(20_000)],
                [new CallStep(20_000)],
                [new CallStep(20_000)],
            ],
            FaultPlan.Empty,
            StallUntilQuiet: true
        );
        var result = await WriterLevelRunner.RunAsync(WriterModes.Inline, scenario, options);
        var sample = Assert.IsType<BackpressureSample>(result.Evidence.Backpressure);
        Assert.True(sample.PeakBytesHeld >= 20_000, sample.ToString());
        Assert.All(result.Evidence.Calls, c => Assert.Equal(CallOutcome.Succeeded, c.Outcome));
    }

    [Theory]
    [InlineData(ChannelLayout.SharedChannel, 256, new ushort[] { 256 })]
    [InlineData(ChannelLayout.OwnChannel, 255, new ushort[] { 255, 256 })]
    [InlineData(ChannelLayout.OwnChannel, 2032, new ushort[] { 2032, 2033 })]
    public async Task Publishes_go_out_on_the_channels_from_the_scenario_base(
        ChannelLayout layout,
        int channelBase,
        ushort[] expected
    )
    {
        var scenario = new Scenario(
            4096,
            layout,
            [
                [new CallStep(5000)],
                [new CallStep(10)],
            ],
            FaultPlan.Empty
        )
        {
            ChannelBase = (ushort)channelBase,
        };
        var result = await WriterLevelRunner.RunAsync(WriterModes.Coalescing, scenario);
        Assert.Equal(expected, result.Evidence.Frames.Select(f => f.Channel).Distinct().Order());
        Assert.Equal(
            Enumerable.Range(0, 2).Count(p => scenario.ChannelOf(p) > 255),
            result.Events[RunEvent.BodyOnChannelAbove255]
        );
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task A_call_without_content_goes_out_as_one_basic_cancel_naming_it_and_holds(string mode)
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.SharedChannel,
            [
                [new CallStep(5000), CallStep.WithoutContent(), new CallStep(10)],
                [CallStep.WithoutContent()],
            ],
            FaultPlan.Empty,
            Seed: 3
        );
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, scenario);
        var e = result.Evidence;
        Assert.Equal(2, result.Events[RunEvent.CommandWithoutContent]);
        Assert.Equal([true, false, true, false], e.Calls.Select(c => c.HasContent));
        Assert.All(e.Calls, c => Assert.Equal(CallOutcome.Succeeded, c.Outcome));
        var cancels = e.Received.Where(f => f.Type == FrameType.Method && f.ClassId == 60 && f.MethodId == 30).ToList();
        Assert.Equal(
            [1, 3],
            cancels.Select(f => CallCorrelation.CallIdOfMethod(f.Payload!.Value.Span, out _)!.Value).Order()
        );
        var wire = WireAssembly.From(e);
        Assert.All(wire.ByCall, kv => Assert.Equal(e.Calls[kv.Key].HasContent, Assert.Single(kv.Value).HasContent));
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}: {v}"));
    }

    [Theory]
    [InlineData("Zoo:MethodLeftUnflushed", InvariantNames.Visibility)]
    [InlineData("Zoo:MethodFramesLeak", InvariantNames.Pools)]
    public async Task Writers_that_mishandle_calls_without_content_are_caught_only_by_them(
        string zooName,
        string invariant
    )
    {
        var broken = AmqpConformance.SelfTest.Zoo.ZooWriters.FromName(zooName)!.Factory;
        var withMethod = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10), CallStep.WithoutContent()],
            ],
            FaultPlan.Empty
        );
        Assert.False((await WriterLevelRunner.RunAsync(broken, withMethod)).Check(invariant).Holds);
        var publishesOnly = withMethod with
        {
            Publishers =
            [
                [new CallStep(10), new CallStep(0)],
            ],
        };
        Assert.All((await WriterLevelRunner.RunAsync(broken, publishesOnly)).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
    }

    [Fact]
    public async Task A_fast_lane_for_calls_without_content_is_caught_overtaking_a_queued_publish()
    {
        var broken = AmqpConformance.SelfTest.Zoo.ZooWriters.FromName("Zoo:ControlLaneOvertakes")!.Factory;
        // The first publish's flush is held; the second publish is queued (and complete: the writer completes on
        // enqueue) when the call without content arrives.
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10)],
                [new CallStep(20)],
                [CallStep.WithoutContent()],
            ],
            FaultPlan.Empty
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Call(1),
                ScriptAction.Call(2),
                ScriptAction.Release,
            ],
        };
        // The script settles the writer after each step, but settling is best effort on a loaded machine: if the
        // writer's loop had not woken before the second publish, both publishes are in flight together and nothing is
        // queued for the call without content to overtake. So each step settles for at least the unhurried floor, and
        // the case gets up to five runs; it needs one in which the loop took the first publish alone.
        var orders = new List<Verdict>();
        for (int attempt = 0; attempt < 5 && !orders.Any(o => !o.Holds); attempt++)
            orders.Add(
                (await WriterLevelRunner.RunAsync(broken, scenario, UnhurriedSettle.Options)).Check(
                    InvariantNames.Order
                )
            );
        var caught = Assert.Single(orders, o => !o.Holds);
        Assert.Equal([1, 2], Assert.Single(caught.Violations, v => v.Rule == "call-order").Calls);
        var publishesOnly = scenario with
        {
            Publishers =
            [
                [new CallStep(10)],
                [new CallStep(20)],
                [new CallStep(0)],
            ],
        };
        Assert.All((await WriterLevelRunner.RunAsync(broken, publishesOnly)).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
        Assert.All((await WriterLevelRunner.RunAsync(WriterModes.Background, scenario)).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task A_token_cancelled_after_its_call_completed_touches_no_call(string mode)
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [
                    new CallStep(10, Cancel: CancelKind.AfterCompletion),
                    new CallStep(20, Cancel: CancelKind.AfterCompletion),
                    new CallStep(30),
                ],
                [new CallStep(40, Cancel: CancelKind.AfterCompletion)],
            ],
            FaultPlan.Empty
        );
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, scenario);
        Assert.Equal(3, result.Events[RunEvent.CancelAfterCompletion]);
        Assert.All(result.Evidence.Calls, c =>
            Assert.Equal((CallOutcome.Succeeded, (bool?)false), (c.Outcome, c.CancelRequested))
        );
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}: {v}"));
    }

    [Fact]
    public async Task A_cancellation_the_harness_fires_is_noted_on_the_call()
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10, Cancel: CancelKind.Before), new CallStep(10)],
            ],
            FaultPlan.Empty
        );
        var calls = (await WriterLevelRunner.RunAsync(WriterModes.Inline, scenario)).Evidence.Calls;
        Assert.Equal(
            [(CallOutcome.Cancelled, (bool?)true), (CallOutcome.Succeeded, false)],
            calls.Select(c => (c.Outcome, c.CancelRequested))
        );
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task A_pipelining_publisher_makes_all_its_calls_before_awaiting_them_and_reference_writers_hold(
        string mode
    )
    {
        var calls = Enumerable
            .Range(0, 40)
            .Select(i => i % 5 == 4 ? CallStep.WithoutContent() : new CallStep(i * 7))
            .ToList();
        var scenario = new Scenario(4096, ChannelLayout.OwnChannel, [calls, [new CallStep(5000)]], FaultPlan.Empty)
        {
            Pipelined = true,
            QueueCapacity = 64,
        };
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, scenario);
        var mine = result.Evidence.Calls.Where(c => c.Publisher == 0).OrderBy(c => c.IndexInPublisher).ToList();
        Assert.Equal(40, mine.Count);
        Assert.All(mine, c => Assert.Equal(CallOutcome.Succeeded, c.Outcome));
        // Each call was made before the first was awaited: they all overlap the last call's start.
        Assert.All(mine, c =>
            Assert.True(c.Ended >= mine[^1].Started, $"call {c.Id} was awaited before the last call was made")
        );
        Assert.Equal([false, .. Enumerable.Repeat(true, 39)], mine.Select(c => c.Pipelined));
        Assert.Equal(1, result.Events[RunEvent.ManyCallsPending]);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}: {v}"));
    }

    [Fact]
    public async Task A_ValueTask_awaited_long_after_its_call_is_consumed_once_and_a_reused_source_shows()
    {
        // A writer that recycles the source behind a ValueTask as soon as it signals it: a pipelining caller that
        // awaits later meets a source already serving another call.
        var recycling = FrameWriterFactory.Create("RecyclesOnSignal", c => new RecyclesOnSignal(
            WriterModes.Inline.CreateWriter(c)
        ));
        var calls = Enumerable.Range(0, 34).Select(i => new CallStep(10)).ToList();
        var scenario = new Scenario(4096, ChannelLayout.OwnChannel, [calls], FaultPlan.Empty) { Pipelined = true };
        var result = await WriterLevelRunner.RunAsync(recycling, scenario);
        Assert.Contains(result.Evidence.Calls, c =>
            c.Outcome == CallOutcome.Failed
            && c.Error!.StartsWith("InvalidOperationException", StringComparison.Ordinal)
        );
        Assert.False(result.Check(InvariantNames.Cancellation).Holds);
        Assert.All((await WriterLevelRunner.RunAsync(recycling, scenario with { Pipelined = false })).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
    }

    /// <summary>Completes every call through one reused ValueTask source, reset for each new call: correct for a
    /// caller that awaits each call before the next, wrong for one that keeps its ValueTasks.</summary>
    private sealed class RecyclesOnSignal(IFrameWriter inner)
        : IFrameWriter,
            System.Threading.Tasks.Sources.IValueTaskSource
    {
        private System.Threading.Tasks.Sources.ManualResetValueTaskSourceCore<bool> _core = new()
        {
            RunContinuationsAsynchronously = true,
        };

        public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            _core.Reset();
            var vt = new ValueTask(this, _core.Version);
            _ = Complete(inner.WriteAsync(command, cancellationToken));
            return vt;
        }

        private async Task Complete(ValueTask write)
        {
            try
            {
                await write.ConfigureAwait(false);
                _core.SetResult(true);
            }
            catch (Exception ex)
            {
                _core.SetException(ex);
            }
        }

        public void GetResult(short token) => _core.GetResult(token);

        public System.Threading.Tasks.Sources.ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

        public void OnCompleted(
            Action<object?> continuation,
            object? state,
            short token,
            System.Threading.Tasks.Sources.ValueTaskSourceOnCompletedFlags flags
        ) => _core.OnCompleted(continuation, state, token, flags);

        public ValueTask DisposeAsync() => inner.DisposeAsync();
    }

    [Fact]
    public async Task A_writer_that_drops_the_channel_high_byte_is_caught_on_channel_256()
    {
        var broken = AmqpConformance.SelfTest.Zoo.ZooWriters.FromName("Zoo:ChannelLowByteBody")!.Factory;
        var low = new Scenario(
            4096,
            ChannelLayout.SharedChannel,
            [
                [new CallStep(10)],
            ],
            FaultPlan.Empty
        )
        {
            ChannelBase = 255,
        };
        Assert.All((await WriterLevelRunner.RunAsync(broken, low)).CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        var high = (await WriterLevelRunner.RunAsync(broken, low with { ChannelBase = 256 })).Check(
            InvariantNames.Broker
        );
        Assert.False(high.Holds); // its body went out on channel 0
    }

    [Theory]
    [InlineData(SecondDisposal.AfterFirst)]
    [InlineData(SecondDisposal.Concurrent)]
    public async Task A_second_disposal_is_made_and_judged(SecondDisposal how)
    {
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10)],
            ],
            FaultPlan.Empty
        )
        {
            SecondDisposal = how,
        };
        foreach (var mode in new[] { WriterModes.Background, WriterModes.Inline, WriterModes.Coalescing })
        {
            var result = await WriterLevelRunner.RunAsync(mode, scenario);
            Assert.Equal(1, result.Events[RunEvent.DisposeTwice]);
            Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode.Name}: {v}"));
        }
        var throwing = FrameWriterFactory.Create("ThrowsOnSecondDispose", c => new ThrowsOnSecondDispose(
            WriterModes.Inline.CreateWriter(c)
        ));
        var lifecycle = (await WriterLevelRunner.RunAsync(throwing, scenario)).Check(InvariantNames.Lifecycle);
        Assert.Contains(
            "ObjectDisposedException",
            Assert.Single(lifecycle.Violations, v => v.Rule == "second-dispose-failed").Message,
            StringComparison.Ordinal
        );
        var scratch = AmqpConformance.SelfTest.Zoo.ZooWriters.FromName("Zoo:DisposeTwiceReturnsScratch")!.Factory;
        Assert.Contains(
            (await WriterLevelRunner.RunAsync(scratch, scenario)).Check(InvariantNames.Pools).Violations,
            v => v.Rule == "double-return"
        );
        Assert.True(
            (await WriterLevelRunner.RunAsync(scratch, scenario with { SecondDisposal = SecondDisposal.None }))
                .Check(InvariantNames.Pools)
                .Holds
        );
    }

    /// <summary>A correct writer whose DisposeAsync throws when called again.</summary>
    private sealed class ThrowsOnSecondDispose(IFrameWriter inner) : IFrameWriter
    {
        private int _disposals;

        public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default) =>
            inner.WriteAsync(command, cancellationToken);

        public ValueTask DisposeAsync() =>
            Interlocked.Increment(ref _disposals) == 1
                ? inner.DisposeAsync()
                : throw new ObjectDisposedException(nameof(ThrowsOnSecondDispose));
    }
}
