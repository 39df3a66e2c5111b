using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>Calls without a token, disposal racing a call's entry, and writers that live past 256 calls, each with the
/// zoo writer that only it catches (docs/decisions.md has the fourth red-team round these came from). Alone in the
/// process: the races and the settles need the cores (see <see cref="RunsAloneCollection"/>).</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class RedTeamFourScenarioTests
{
    [Fact]
    public async Task A_call_without_a_token_reaches_the_writer_with_none_and_the_script_cannot_cancel_it()
    {
        var seen = new System.Collections.Concurrent.ConcurrentQueue<bool>();
        var recording = FrameWriterFactory.Create("RecordsTokens", c => new RecordsTokens(
            WriterModes.Inline.CreateWriter(c),
            seen
        ));
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [
                    new CallStep(10, WithoutToken: true),
                    new CallStep(20),
                    CallStep.WithoutContent() with
                    {
                        WithoutToken = true,
                    },
                ],
            ],
            FaultPlan.Empty
        );
        var result = await WriterLevelRunner.RunAsync(recording, scenario);
        Assert.Equal([false, true, false], seen.ToArray()); // CanBeCanceled, call by call (the publisher awaits each)
        Assert.Equal(2, result.Events[RunEvent.CallWithoutToken]);
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));

        // The script cancels the call while its flush is held: there is nothing to cancel, and nothing is noted as
        // requested.
        var held = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10, WithoutToken: true)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Cancel(0), ScriptAction.Release],
        };
        var call = Assert.Single((await WriterLevelRunner.RunAsync(WriterModes.Inline, held)).Evidence.Calls);
        Assert.Equal(CallOutcome.Succeeded, call.Outcome);
        Assert.NotEqual(true, call.CancelRequested);

        var cancelledWithoutToken = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(1, Cancel: CancelKind.Before, WithoutToken: true)],
            ],
            FaultPlan.Empty
        );
        await Assert.ThrowsAnyAsync<Exception>(() =>
            WriterLevelRunner.RunAsync(WriterModes.Inline, cancelledWithoutToken)
        );
    }

    [Fact]
    public async Task A_writer_whose_fast_path_for_calls_without_a_token_skips_its_checks_is_caught_only_by_such_calls()
    {
        var broken = ZooWriters.FromName("Zoo:DefaultTokenFastPath")!.Factory;
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10), new CallStep(20, WithoutToken: true)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Call(0), ScriptAction.Dispose, ScriptAction.Call(0)],
        };
        var lifecycle = (await WriterLevelRunner.RunAsync(broken, scenario)).Check(InvariantNames.Lifecycle);
        Assert.Contains(lifecycle.Violations, v => v.Rule == "write-after-dispose");
        var withToken = scenario with
        {
            Publishers =
            [
                [new CallStep(10), new CallStep(20)],
            ],
        };
        Assert.All((await WriterLevelRunner.RunAsync(broken, withToken)).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Disposal_racing_a_call_begins_once_is_counted_and_reference_writers_hold(string mode)
    {
        foreach (int spins in new[] { 0, 20, 400 })
        {
            var scenario = new Scenario(
                4096,
                ChannelLayout.OwnChannel,
                [
                    [new CallStep(10), new CallStep(50_000)],
                    [new CallStep(30)],
                ],
                FaultPlan.Empty
            )
            {
                Script = [ScriptAction.Call(0), ScriptAction.Call(1), ScriptAction.DisposeRacingCall(0, spins)],
            };
            var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, scenario);
            Assert.Equal(1, result.Events[RunEvent.DisposeRacingCall]);
            Assert.NotNull(result.Evidence.Lifecycle?.DisposeInvokedAt);
            var racing = result.Evidence.Calls.Single(c => c.Publisher == 0 && c.IndexInPublisher == 1);
            Assert.NotEqual(CallOutcome.Pending, racing.Outcome); // it went through whole, or was refused
            Assert.Contains(racing.Id, result.Evidence.Lifecycle!.CallsPendingAtDispose);
            Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}, {spins} spins: {v}"));
        }
        // A race whose call cannot be made (its publisher has none left) still disposes.
        var skipped = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Call(0), ScriptAction.DisposeRacingCall(0)],
        };
        var alone = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, skipped);
        Assert.NotNull(alone.Evidence.Lifecycle?.DisposeInvokedAt);
        Assert.Equal(0, alone.Events[RunEvent.DisposeRacingCall]);
    }

    [Fact]
    public async Task A_writer_that_misses_disposal_while_it_copies_outside_its_lock_is_caught_when_disposal_lands_in_the_copy()
    {
        // Where disposal lands is up to the scheduler (on a loaded machine the two threads seldom run at once), so this
        // test puts it in the window: disposal waits until the writer's second call rents its staging buffer, and that
        // rent waits until disposal has returned.
        var broken = ZooWriters.FromName("Zoo:DisposeRaceBeforeLock")!.Factory;
        var gated = FrameWriterFactory.Create(
            "GatedDisposeRaceBeforeLock",
            c => GatedOnSecondCall.Create(broken, c),
            broken.Completion
        );
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(10), new CallStep(100)],
            ],
            FaultPlan.Empty
        )
        {
            Script = [ScriptAction.Call(0), ScriptAction.DisposeRacingCall(0)],
        };
        var lifecycle = (await WriterLevelRunner.RunAsync(gated, scenario)).Check(InvariantNames.Lifecycle);
        Assert.Contains(lifecycle.Violations, v => v.Rule == "write-after-dispose");
        var disposedFirst = scenario with
        {
            Script = [ScriptAction.Call(0), ScriptAction.Dispose, ScriptAction.Call(0)],
        };
        Assert.True((await WriterLevelRunner.RunAsync(broken, disposedFirst)).Check(InvariantNames.Lifecycle).Holds);
    }

    /// <summary>A writer whose DisposeAsync first waits (up to 10 s) for its second call to rent, and whose second
    /// call's first rent waits (up to 10 s) until DisposeAsync has returned: disposal is then sure to land after that
    /// call's entry check and before whatever it does after renting.</summary>
    private sealed class GatedOnSecondCall(IFrameWriter inner, GatedOnSecondCall.GatedPool pool) : IFrameWriter
    {
        private int _calls;

        public static IFrameWriter Create(FrameWriterFactory factory, WriterContext context)
        {
            var pool = new GatedPool(context.Pool);
            return new GatedOnSecondCall(factory.CreateWriter(context with { Pool = pool }), pool);
        }

        public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            if (Interlocked.Increment(ref _calls) == 2)
                pool.Armed = true;
            return inner.WriteAsync(command, cancellationToken);
        }

        public async ValueTask DisposeAsync()
        {
            pool.Reached.Wait(TimeSpan.FromSeconds(10));
            await inner.DisposeAsync();
            pool.Disposed.Set();
        }

        internal sealed class GatedPool(System.Buffers.ArrayPool<byte> inner) : System.Buffers.ArrayPool<byte>
        {
            public volatile bool Armed;
            public readonly ManualResetEventSlim Reached = new();
            public readonly ManualResetEventSlim Disposed = new();

            public override byte[] Rent(int minimumLength)
            {
                if (Armed)
                {
                    Armed = false;
                    Reached.Set();
                    Disposed.Wait(TimeSpan.FromSeconds(10));
                }
                return inner.Rent(minimumLength);
            }

            public override void Return(byte[] array, bool clearArray = false) => inner.Return(array, clearArray);
        }
    }

    [Fact]
    public async Task A_writer_that_trims_its_buffer_every_256_commands_is_caught_only_when_it_lives_that_long()
    {
        var broken = ZooWriters.FromName("Zoo:StagingTrimEvery256")!.Factory;
        Scenario Pipelined(int calls) =>
            new(
                4096,
                ChannelLayout.OwnChannel,
                [
                    [.. Enumerable.Range(0, calls).Select(i => new CallStep(i % 200))],
                ],
                FaultPlan.Empty
            )
            {
                Pipelined = true,
            };
        var longLived = await WriterLevelRunner.RunAsync(broken, Pipelined(300));
        Assert.Equal(1, longLived.Events[RunEvent.LongLivedWriter]);
        Assert.Contains(longLived.CheckAll(), v => !v.Holds);
        var shortLived = await WriterLevelRunner.RunAsync(broken, Pipelined(200));
        Assert.Equal(0, shortLived.Events[RunEvent.LongLivedWriter]);
        Assert.All(shortLived.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
        Assert.All((await WriterLevelRunner.RunAsync(WriterModes.Coalescing, Pipelined(300))).CheckAll(), v =>
            Assert.True(v.Holds, v.ToString())
        );
    }

    /// <summary>A correct writer that notes, call by call, whether the call's token could be cancelled.</summary>
    private sealed class RecordsTokens(IFrameWriter inner, System.Collections.Concurrent.ConcurrentQueue<bool> seen)
        : IFrameWriter
    {
        public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            seen.Enqueue(cancellationToken.CanBeCanceled);
            return inner.WriteAsync(command, cancellationToken);
        }

        public ValueTask DisposeAsync() => inner.DisposeAsync();
    }
}
