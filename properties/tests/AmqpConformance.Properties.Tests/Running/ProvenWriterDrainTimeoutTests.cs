using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The drain timeout a writer is given: the default on a draining output, 25 ms on an output stalled through
/// disposal, and a short one for a writer already proven broken, whose wait after giving up (real time, at least the
/// drain timeout) is then 1 s instead of 5 s.</summary>
public sealed class ProvenWriterDrainTimeoutTests
{
    private static Scenario OneCall(bool stalledThroughDispose) =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(100)],
            ],
            FaultPlan.Empty,
            Seed: 7
        )
        {
            Script = [ScriptAction.Call(0), ScriptAction.Dispose],
            StallThroughDispose = stalledThroughDispose,
        };

    [Theory]
    [InlineData(false, false, 5_000)]
    [InlineData(true, false, 25)]
    [InlineData(false, true, 200)]
    [InlineData(true, true, 25)]
    public async Task The_writer_is_told_the_drain_timeout_for_its_case(bool stalled, bool proven, int expectedMs)
    {
        WriterContext? seen = null;
        var inner = WriterModes.Inline;
        var factory = FrameWriterFactory.Create(
            "DrainTimeoutProbe",
            c =>
            {
                seen = c;
                return inner.CreateWriter(c);
            },
            WriterCompletion.AfterFlush
        );
        var options = WriterRunOptions.Default with
        {
            ProvenRules = proven ? new HashSet<string> { "call-hung" } : new HashSet<string>(),
        };
        await WriterLevelRunner.RunAsync(factory, OneCall(stalled), options).WaitAsync(TimeSpan.FromMinutes(2));

        Assert.NotNull(seen);
        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), seen.DrainTimeout);
        Assert.Equal(TimeSpan.FromSeconds(Math.Max(1, expectedMs / 1000.0)), seen.GiveUpWait);
    }
}
