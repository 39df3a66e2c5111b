using AmqpConformance.Harness.Faults;
using static AmqpConformance.Harness.Tests.Faults.FaultyTransportTestKit;

namespace AmqpConformance.Harness.Tests.Faults;

/// <summary>Seeded random plans (a fixed list, so failures replay) checked against the transport's basic
/// laws.</summary>
[Trait("Area", "Faults")]
public sealed class FaultyTransportPropertyTests
{
    private static FaultPlan RandomPlan(Random r, bool terminal)
    {
        var faults = new List<Fault>();
        FaultDirection Dir() => r.Next(4) == 0 ? FaultDirection.Downstream : FaultDirection.Upstream;
        int n = r.Next(0, 5);
        for (int i = 0; i < n; i++)
        {
            faults.Add(
                r.Next(terminal ? 8 : 5) switch
                {
                    0 => new LatencyFault(r.Next(0, 50), r.Next(0, 10)) { Direction = Dir() },
                    1 => new SlicerFault(r.Next(5, 200), r.Next(0, 5), r.Next(0, 100)) { Direction = Dir() },
                    2 => new BandwidthFault(r.Next(1, 1000)) { Direction = Dir() },
                    3 => new StallFault(r.Next(0, 5000), r.Next(0, 100)) { Direction = Dir() },
                    4 => new SlowCloseFault(r.Next(0, 100)) { Direction = Dir() },
                    5 => new ResetPeerFault(r.Next(0, 5000)),
                    6 => new LimitDataFault(r.Next(0, 5000)),
                    _ => new BlackHoleFault(r.Next(1, 100), r.Next(0, 5000)),
                }
            );
        }
        return new FaultPlan(r.Next(), faults);
    }

    [Fact]
    public async Task Without_terminal_faults_every_byte_arrives_in_order_and_the_transcript_accounts_for_it()
    {
        var r = new Random(20261122);
        for (int c = 0; c < 60; c++)
        {
            FaultPlan plan = RandomPlan(r, terminal: false);
            byte[] data = Pattern(r.Next(0, 6000), c);
            int[] flushes = [.. Enumerable.Range(0, 4).Select(_ => r.Next(1, 3000))];
            using var cts = Timeout();
            await using var transport = FaultyTransport.Create(plan, new() { TimeMode = FaultTimeMode.Virtual });
            var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
            await WriteInFlushesAsync(transport.ClientSide.Output, data, flushes, cts.Token);
            await transport.ClientSide.Output.CompleteAsync();
            var (bytes, _, error) = await reading;
            Assert.Null(error);
            Assert.True(data.AsSpan().SequenceEqual(bytes), $"case {c}: {plan}");
            Assert.Equal(data.Length, transport.Transcript.DeliveredBytes(FaultDirection.Upstream));
            Assert.Null(transport.Termination);
        }
    }

    [Fact]
    public async Task With_terminal_faults_what_arrives_is_a_prefix_and_nothing_hangs()
    {
        var r = new Random(11221);
        for (int c = 0; c < 60; c++)
        {
            FaultPlan plan = RandomPlan(r, terminal: true);
            byte[] data = Pattern(r.Next(1, 8000), c);
            using var cts = Timeout();
            await using var transport = FaultyTransport.Create(plan, new() { TimeMode = FaultTimeMode.Virtual });
            var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
            try
            {
                for (int pos = 0; pos < data.Length; pos += 500)
                    await transport.ClientSide.Output.WriteAsync(
                        data.AsMemory(pos, Math.Min(500, data.Length - pos)),
                        cts.Token
                    );
                await transport.ClientSide.Output.CompleteAsync();
            }
            catch (IOException) { } // the plan broke the connection: what arrived is checked below, a prefix either way
            var (bytes, _, _) = await reading;
            Assert.True(data.AsSpan(0, bytes.Length).SequenceEqual(bytes), $"case {c}: not a prefix: {plan}");
            if (transport.Termination is { } t)
                Assert.Contains(transport.Transcript.For(t.Direction), e =>
                    e.Kind is TranscriptEventKind.Reset or TranscriptEventKind.Closed
                );
        }
    }

    [Fact]
    public void Shrinking_any_plan_terminates_at_the_empty_plan()
    {
        var r = new Random(7);
        for (int c = 0; c < 100; c++)
        {
            FaultPlan plan = RandomPlan(r, terminal: true);
            int steps = 0;
            while (plan.ShrinkCandidates().ToList() is { Count: > 0 } candidates) // a random step each time
            {
                FaultPlan simpler = candidates[r.Next(candidates.Count)];
                Assert.True(simpler.Complexity < plan.Complexity);
                plan = simpler;
                Assert.True(++steps < 100_000, "shrinking does not terminate");
            }
            Assert.Equal(FaultPlan.Empty with { Seed = plan.Seed }, plan);
        }
    }
}
