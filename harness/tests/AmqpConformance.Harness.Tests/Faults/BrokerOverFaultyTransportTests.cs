using System.Buffers;
using System.IO.Pipelines;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using static AmqpConformance.Harness.Tests.Faults.FaultyTransportTestKit;

namespace AmqpConformance.Harness.Tests.Faults;

/// <summary>The fake broker served over the in-process faulty transport sees faults as it would on a socket.</summary>
[Trait("Area", "Faults")]
public sealed class BrokerOverFaultyTransportTests
{
    [Fact]
    public async Task Reset_mid_frame_leaves_the_broker_a_truncated_frame_and_fails_the_writer()
    {
        using var cts = Timeout(20);
        await using var broker = FakeAmqpBroker.CreateWithoutListener();
        int header = AmqpConstants.ProtocolHeader.Length;
        await using var transport = FaultyTransport.Create(
            new FaultPlan(1, [new ResetPeerFault(header + 50)]),
            new() { TimeMode = FaultTimeMode.Virtual }
        );
        BrokerConnection connection = broker.Serve(transport.BrokerSide);

        await transport.ClientSide.Output.WriteAsync(AmqpConstants.ProtocolHeader.ToArray(), cts.Token);
        ReadResult start = await transport.ClientSide.Input.ReadAsync(cts.Token); // connection.start arrives
        Assert.True(start.Buffer.Length > 0);
        transport.ClientSide.Input.AdvanceTo(start.Buffer.End);

        var frame = new ArrayBufferWriter<byte>();
        FrameFormat.WriteFrame(frame, FrameType.Method, 0, new byte[100]);
        await Assert.ThrowsAsync<TransportResetException>(async () =>
        {
            await transport.ClientSide.Output.WriteAsync(frame.WrittenMemory, cts.Token);
            await transport.Completion.WaitAsync(cts.Token); // the pumps have applied the reset
            await transport.ClientSide.Output.WriteAsync(frame.WrittenMemory, cts.Token);
        });

        await connection.Completion.WaitAsync(cts.Token);
        ProtocolFinding truncated = Assert.Single(connection.Findings, f => f.Rule == "truncated-frame");
        Assert.Contains("50 byte", truncated.Message);
        Assert.DoesNotContain(connection.Log.Snapshot(), f => f.Direction == FrameDirection.Received);
    }

    [Theory]
    [InlineData("Background")]
    [InlineData("Inline")]
    [InlineData("Coalescing")]
    public async Task Writers_publish_intact_through_sliced_and_jittered_links(string mode)
    {
        using var cts = Timeout(30);
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions { FrameMax = 4096, HeartbeatSeconds = 0 }
        );
        var plan = new FaultPlan(
            77,
            [
                new SlicerFault(7, 3),
                new LatencyFault(2, 1),
                new SlicerFault(5, 2) { Direction = FaultDirection.Downstream },
            ]
        );
        await using var transport = FaultyTransport.Create(plan, new() { TimeMode = FaultTimeMode.Virtual });
        BrokerConnection served = broker.Serve(transport.BrokerSide);
        var pool = new TrackingArrayPool();
        var options = new HarnessClientOptions
        {
            WriterFactory = WriterModes.FromName(mode)!,
            Pool = pool,
            FrameMax = 4096,
        };
        await using (
            HarnessConnection connection = await HarnessConnection.ConnectAsync(
                transport.ClientSide,
                options,
                cts.Token
            )
        )
        {
            HarnessChannel channel = await connection.OpenChannelAsync(confirms: true, cts.Token);
            byte[][] bodies = [.. Enumerable.Range(0, 20).Select(i => Pattern(i * 700, i))];
            await Task.WhenAll(
                Enumerable
                    .Range(0, 4)
                    .Select(p =>
                        Task.Run(async () =>
                        {
                            for (int i = p; i < bodies.Length; i += 4)
                                await channel.PublishAsync("", "q", bodies[i], cancellationToken: cts.Token);
                        })
                    )
            );
            Assert.True(await channel.WaitForConfirmsAsync(cts.Token));
            Assert.Equal(bodies.Length, served.Published.Count);
            foreach (byte[] body in bodies)
                Assert.Contains(served.Published, m => m.Body.Span.SequenceEqual(body));
        }
        Assert.Empty(served.Findings);
        Assert.True(transport.Transcript.DeliveredChunkSizes(FaultDirection.Upstream).Count > 1000);
        Assert.All(transport.Transcript.DeliveredChunkSizes(FaultDirection.Upstream), n => Assert.InRange(n, 1, 10));
        PoolLedgerReport ledger = pool.Verify();
        Assert.True(ledger.IsClean, ledger.ToString());
    }
}
