using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A disposal on an output stalled through it is judged on what the writer can know: a writer that gives up on
/// a timer of its own (system clock, not <see cref="WriterContext.TimeProvider"/>) within its factory's
/// <see cref="FrameWriterFactory.DisposeTimeout"/> holds; one whose disposal never returns is caught, and only its
/// first hang costs that real time.</summary>
public sealed class OwnTimerDisposalTests
{
    /// <summary>A case bound far shorter than the writers' own timers: the old rule judged disposal on it
    /// alone.</summary>
    private static readonly WriterRunOptions Options = WriterRunOptions.Default with
    {
        DisposeMargin = TimeSpan.FromMilliseconds(100),
        CallTimeout = TimeSpan.FromSeconds(1),
    };

    /// <summary>Two calls parked behind a stalled output, then disposal: the output stays stalled until disposal
    /// returns.</summary>
    private static Scenario StalledThroughDispose() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(100), new CallStep(100)],
                [new CallStep(100)],
            ],
            FaultPlan.Empty,
            Seed: 11
        )
        {
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Call(1), ScriptAction.Dispose],
            StallThroughDispose = true,
        };

    [Fact]
    public async Task A_writer_that_gives_up_on_its_own_real_time_timer_within_its_dispose_timeout_holds()
    {
        var factory = FrameWriterFactory.Create(
            "OwnTimer",
            c => new OwnTimerWriter(c, TimeSpan.FromMilliseconds(600), hangs: false),
            WriterCompletion.AfterFlush
        );
        var result = await WriterLevelRunner
            .RunAsync(factory, StalledThroughDispose(), Options)
            .WaitAsync(TimeSpan.FromMinutes(2));

        var life = result.Evidence.Lifecycle!;
        Assert.NotNull(life.DisposeReturnedAt);
        Assert.Equal(FrameWriterFactory.DefaultDisposeTimeout, life.RealTimeBound);
        foreach (string invariant in InvariantNames.All)
            Assert.True(result.Check(invariant).Holds, result.Check(invariant).ToString());
        Assert.False(HungDisposals.Includes(factory));
    }

    [Fact]
    public async Task A_disposal_that_never_returns_is_hung_and_its_next_one_is_not_given_real_time_again()
    {
        string name = "NeverReturns:" + Guid.NewGuid();
        var factory = Hanging(name);

        var first = await WriterLevelRunner
            .RunAsync(factory, StalledThroughDispose(), Options)
            .WaitAsync(TimeSpan.FromMinutes(2));
        var firstVerdict = first.Check(InvariantNames.Lifecycle);
        var hung = Assert.Single(firstVerdict.Violations, v => v.Rule == "dispose-hung");
        Assert.Contains("0.3 s of real time", hung.Message, StringComparison.Ordinal);
        Assert.Equal(TimeSpan.FromMilliseconds(300), first.Evidence.Lifecycle!.RealTimeBound);
        Assert.True(HungDisposals.Includes(factory));

        // A suite makes a new factory for each test: what the harness learned holds for the same writer made by another
        // instance.
        Assert.True(HungDisposals.Includes(Hanging(name)));
        Assert.False(HungDisposals.Includes(Hanging(name + ":other")));
        var second = await WriterLevelRunner
            .RunAsync(Hanging(name), StalledThroughDispose(), Options)
            .WaitAsync(TimeSpan.FromMinutes(2));
        Assert.Null(second.Evidence.Lifecycle!.RealTimeBound);
        Assert.Contains(second.Check(InvariantNames.Lifecycle).Violations, v => v.Rule == "dispose-hung");
    }

    private static FrameWriterFactory Hanging(string name) =>
        FrameWriterFactory.Create(
            name,
            c => new OwnTimerWriter(c, TimeSpan.FromMilliseconds(50), hangs: true),
            WriterCompletion.AfterFlush,
            disposeTimeout: TimeSpan.FromMilliseconds(300)
        );

    [Fact]
    public void A_dispose_timeout_must_be_positive_and_finite()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            FrameWriterFactory.Create(
                "x",
                c => new InlineSemaphoreWriter(c),
                WriterCompletion.AfterFlush,
                TimeSpan.Zero
            )
        );
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            FrameWriterFactory.Create(
                "x",
                c => new InlineSemaphoreWriter(c),
                WriterCompletion.AfterFlush,
                Timeout.InfiniteTimeSpan
            )
        );
        Assert.Equal(FrameWriterFactory.DefaultDisposeTimeout, WriterModes.Inline.DisposeTimeout);
        Assert.Equal(
            TimeSpan.FromSeconds(7),
            FrameWriterFactory
                .Create("x", c => new InlineSemaphoreWriter(c), WriterCompletion.AfterFlush, TimeSpan.FromSeconds(7))
                .DisposeTimeout
        );
    }

    /// <summary>The zoo's inline writer (one lock, write, flush, complete after the flush) whose disposal waits for the
    /// write in progress with <c>SemaphoreSlim.WaitAsync(TimeSpan)</c> on the system clock, then cancels the pending
    /// flush and waits as long again; or, with <paramref name="hangs"/>, whose disposal never returns.</summary>
    private sealed class OwnTimerWriter(WriterContext context, TimeSpan wait, bool hangs)
        : InlineZooWriter(context, "own-timer")
    {
        public override ValueTask DisposeAsync() =>
            hangs ? new ValueTask(new TaskCompletionSource().Task) : DisposeOnOwnTimerAsync(wait);
    }
}
