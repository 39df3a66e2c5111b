using AmqpConformance.Harness.Faults;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests.Clients;

/// <summary>A client-level case injects the fault plan its scenario prints, as it is (a stall, a reset after N bytes,
/// slicing, with the plan's seed), and a replay of the case (its plan read back from the JSON a report prints, run by
/// a new runner) injects the same faults.</summary>
/// <remarks>What is compared is the transcripts' deterministic part, not the whole transcripts: where each fault acted
/// (kind, direction, stream offset, planned delay, note) and how many bytes went each way. The rest depends on TCP
/// timing: the proxy's chunks are its socket receives, which the slicer then cuts, so the delivered entries (and the
/// slicer's draws, consumed per slice), the bytes of the chunk in hand a reset lost, and whether the other direction
/// saw its sender fail before the reset stopped its pump differ from run to run. In process, where a chunk is one
/// flush, the whole transcript repeats.</remarks>
public sealed class ClientFaultReplayTests
{
    private static readonly FaultPlan Plan = new(
        42,
        [new SlicerFault(7, 3), new StallFault(600, 20), new ResetPeerFault(1500)]
    );

    private static Scenario Case(FaultPlan plan) =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [.. Enumerable.Repeat(new CallStep(100), 8)],
                [.. Enumerable.Repeat(new CallStep(100), 8)],
            ],
            plan
        )
        {
            Confirms = false, // the broker's acks would coalesce by timing, and change the bytes sent downstream
        };

    /// <summary>The fault points of every connection's transcript, in order per direction, and the bytes delivered
    /// each way.</summary>
    private static IReadOnlyList<string> Injected(RunResult result) =>
        [
            .. result.InjectedFaults.SelectMany(t =>
                new[] { FaultDirection.Upstream, FaultDirection.Downstream }.SelectMany(d =>
                    t.For(d)
                        .Where(e => e.Kind is not (TranscriptEventKind.Delivered or TranscriptEventKind.Ended))
                        .Select(e => $"{d} {e.Kind} @{e.Offset} delay {e.Delay.TotalMilliseconds} ms {e.Detail}")
                        .Append($"{d} delivered {t.DeliveredBytes(d)} bytes")
                )
            ),
        ];

    [Fact]
    public async Task A_replay_injects_the_same_faults_as_the_original_case()
    {
        var client = new HarnessClientAdapter();
        RunResult original;
        await using (var runner = await ClientLevelRunner.StartAsync())
            original = await runner.RunAsync(client, Case(Plan));
        RunResult replay;
        await using (var runner = await ClientLevelRunner.StartAsync())
            replay = await runner.RunAsync(client, Case(FaultPlan.FromJson(Plan.ToJson())));

        Assert.Equal(
            new[]
            {
                "Upstream StallStarted @600 delay 20 ms ",
                "Upstream StallEnded @600 delay 0 ms ",
                "Upstream Reset @1500 delay 0 ms reset_peer after 1500 bytes",
                "Upstream delivered 1500 bytes",
                $"Downstream delivered {original.InjectedFaults[0].DeliveredBytes(FaultDirection.Downstream)} bytes",
            },
            Injected(original)
        );
        Assert.Equal(Injected(original), Injected(replay));
        foreach (RunResult run in new[] { original, replay })
        {
            FaultTranscript transcript = Assert.Single(run.InjectedFaults);
            Assert.All(transcript.DeliveredChunkSizes(FaultDirection.Upstream), n => Assert.InRange(n, 1, 10));
            Assert.Contains(
                "injected: StallStarted upstream @600, Reset upstream @1500",
                run.Evidence.Fault!.Description
            );
        }
    }

    [Fact]
    public async Task A_plan_that_never_reached_a_disruptive_fault_is_no_fault_and_excuses_nothing()
    {
        var neverReached = new FaultPlan(5, [new SlicerFault(7, 3), new ResetPeerFault(50_000_000)]);
        RunResult result;
        await using (var runner = await ClientLevelRunner.StartAsync())
            result = await runner.RunAsync(new HarnessClientAdapter(), Case(neverReached));

        Assert.Null(result.Evidence.Fault);
        Assert.DoesNotContain(result.InjectedFaults.SelectMany(t => t.Snapshot()), e =>
            e.Kind is TranscriptEventKind.Reset or TranscriptEventKind.StallStarted
        );
        Assert.All(result.CheckAll(), v => Assert.True(v.Holds, v.ToString()));
    }
}
