using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A pulse: the held output completes what it holds and stalls again at once, so a call completed on the
/// strength of the flush after a successful one is seen completing before its bytes were delivered.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class PulseTests
{
    /// <summary>A publish parks in a held flush, a command without content arrives behind it, then the output pulses
    /// and is released at the end.</summary>
    private static Scenario MethodBehindAHeldPublish() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(300)],
                [CallStep.WithoutContent()],
            ],
            FaultPlan.Empty,
            Seed: 5
        )
        {
            Script =
            [
                ScriptAction.Hold,
                ScriptAction.Call(0),
                ScriptAction.Call(1),
                ScriptAction.Pulse,
                ScriptAction.Release,
            ],
        };

    [Fact]
    public async Task A_writer_that_completes_calls_before_the_flush_after_a_pulse_is_caught_every_time()
    {
        var piggybacked = ZooWriters.FromName("Zoo:PiggybackedMethods")!.Factory;
        var result = await WriterLevelRunner.RunAsync(piggybacked, MethodBehindAHeldPublish(), UnhurriedSettle.Options);
        Assert.Equal(1, result.Events[RunEvent.PulseWithCallsPending]);
        var method = result.Evidence.Calls.Single(c => c.Publisher == 1);
        Assert.Contains(result.Check(InvariantNames.Faults).Violations, v =>
            v.Rule == "succeeded-but-not-delivered" && v.Calls.Contains(method.Id)
        );
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Reference_writers_hold_through_a_pulse(string mode)
    {
        var result = await WriterLevelRunner.RunAsync(WriterModes.FromName(mode)!, MethodBehindAHeldPublish());
        Assert.All(result.Evidence.Calls, c => Assert.Equal(CallOutcome.Succeeded, c.Outcome));
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, $"{mode}: {v}"));
    }

    [Fact]
    public void Generated_scripts_pulse_only_while_holding_and_never_once_the_output_is_to_stay_stalled_through_disposal()
    {
        int pulses = 0;
        for (int seed = 0; seed < 2000; seed++)
        {
            var random = new Random(seed);
            var features = new SwarmFeatures(
                Scripted: true,
                Cancellation: true,
                Faults: false,
                Owners: false,
                Headers: false,
                LargeBodies: false,
                ManyPublishers: false,
                SmallQueue: false,
                SmallThreshold: false,
                Noise: false,
                Holds: true,
                Dispose: true,
                Reset: seed % 3 == 0,
                TransportStall: false,
                StallThroughDispose: seed % 2 == 0
            );
            var script = ScriptGenerator.Build([3, 4, 2], features, random);
            bool holding = false,
                disposed = false;
            foreach (var action in script)
            {
                switch (action.Kind)
                {
                    case ScriptActionKind.Hold:
                        holding = true;
                        break;
                    case ScriptActionKind.Release
                    or ScriptActionKind.ReleaseRacingCall
                    or ScriptActionKind.ReleaseRacingCancel:
                        holding = false;
                        break;
                    case ScriptActionKind.Dispose or ScriptActionKind.DisposeRacingCall:
                        disposed = true;
                        break;
                    case ScriptActionKind.Pulse:
                        pulses++;
                        Assert.True(holding, $"seed {seed}: a pulse while not holding: {string.Join(' ', script)}");
                        Assert.False(
                            disposed && features.StallThroughDispose,
                            $"seed {seed}: a pulse after disposal with the output to stay stalled: {string.Join(' ', script)}"
                        );
                        break;
                }
            }
        }
        Assert.True(pulses > 100, $"only {pulses} pulses in 2,000 scripts");
    }
}
