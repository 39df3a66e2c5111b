using System.Net.Sockets;
using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy.Tests.Proxy;

/// <summary>A <see cref="FaultPlan"/> given to the proxy with <see cref="FaultProxy.ApplyPlan"/> reaches its
/// connections as it is: a stall as a stall, a reset after N bytes as a reset (not the limit_data close
/// <see cref="FaultPlanToxics.Map"/> makes of it), and the plan's seed drives the slicing, as in process.</summary>
[Trait("Area", "Faults")]
public sealed class FaultPlanThroughProxyTests
{
    private static async Task<long> ReadAllAsync(NetworkStream stream, CancellationToken ct)
    {
        byte[] buffer = new byte[4096];
        long total = 0;
        try
        {
            int n;
            while ((n = await stream.ReadAsync(buffer, ct)) > 0)
                total += n;
        }
        catch (IOException)
        {
            // the proxy reset the connection: what was read before is the count
        }
        return total;
    }

    /// <summary>Fed through the old mapping (<c>AddToxic(FaultPlanToxics.Map(plan))</c>), the connection would run a
    /// single limit_data 100 upstream: no stall, and an orderly close instead of a reset.</summary>
    [Fact]
    public async Task A_stall_and_a_reset_after_n_bytes_reach_the_connection_as_such()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using var rig = new LoopbackProxyRig();
        var plan = new FaultPlan(7, [new StallFault(10, 50), new ResetPeerFault(100)]);
        var seen = new TaskCompletionSource<(IReadOnlyList<Fault> Up, IReadOnlyList<Fault> Down)>(
            TaskCreationOptions.RunContinuationsAsynchronously
        );
        rig.Proxy.ForwardingStarting = c => seen.TrySetResult((c.UpstreamFaults.Current, c.DownstreamFaults.Current));
        AppliedFaultPlan applied = rig.Proxy.ApplyPlan(plan);

        var (client, upstream) = await rig.ConnectAsync(cts.Token);
        using (client)
        using (upstream)
        {
            var (up, down) = await seen.Task.WaitAsync(cts.Token);
            Assert.Equal(plan.Faults, up);
            Assert.Empty(down);
            Assert.Empty(rig.Proxy.Toxics()); // a plan is not a toxic: the API shows none

            await client.GetStream().WriteAsync(new byte[200], cts.Token);
            long forwarded = await ReadAllAsync(upstream.GetStream(), cts.Token);
            var ended = await Assert.ThrowsAnyAsync<IOException>(async () =>
            {
                while (await client.GetStream().ReadAsync(new byte[16], cts.Token) > 0) { }
            });
            Assert.Equal(
                SocketError.ConnectionReset,
                Assert.IsType<SocketException>(ended.InnerException).SocketErrorCode
            );
            Assert.InRange(forwarded, 0, 100);
        }
        await applied.WhenConnectionsEnded().WaitAsync(cts.Token);
        FaultTranscript transcript = Assert.Single(applied.Transcripts());
        Assert.Equal(100, transcript.DeliveredBytes(FaultDirection.Upstream));
        Assert.Equal(
            new (TranscriptEventKind, long, TimeSpan)[]
            {
                (TranscriptEventKind.StallStarted, 10L, TimeSpan.FromMilliseconds(50)),
                (TranscriptEventKind.StallEnded, 10L, TimeSpan.Zero),
                (TranscriptEventKind.Reset, 100L, TimeSpan.Zero),
            },
            transcript
                .For(FaultDirection.Upstream)
                .Where(e => e.Kind != TranscriptEventKind.Delivered)
                .Select(e => (e.Kind, e.Offset, e.Delay))
        );
    }

    [Fact]
    public async Task The_plans_seed_slices_a_chunk_as_the_in_process_transport_does()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using var rig = new LoopbackProxyRig();
        var plan = new FaultPlan(4242, [new SlicerFault(10, 6)]);
        using var sent = new ManualResetEventSlim();
        // The client's 200 bytes are in the proxy's socket before it reads, so they are one chunk, as one flush is in
        // process.
        rig.Proxy.ForwardingStarting = _ => sent.Wait(cts.Token);
        AppliedFaultPlan applied = rig.Proxy.ApplyPlan(plan);
        var (client, upstream) = await rig.ConnectAsync(cts.Token);
        using (client)
        using (upstream)
        {
            await client.GetStream().WriteAsync(new byte[200], cts.Token);
            sent.Set();
            byte[] buffer = new byte[200];
            await upstream.GetStream().ReadExactlyAsync(buffer, cts.Token);
        }
        await applied.WhenConnectionsEnded().WaitAsync(cts.Token); // its transcript is complete
        IReadOnlyList<long> proxied = Assert.Single(applied.Transcripts()).DeliveredChunkSizes(FaultDirection.Upstream);

        await using FaultyTransport transport = FaultyTransport.Create(
            plan,
            new FaultyTransportOptions { TimeMode = FaultTimeMode.Virtual }
        );
        await transport.ClientSide.Output.WriteAsync(new byte[200], cts.Token);
        byte[] received = new byte[200];
        await transport.BrokerSide.Input.AsStream().ReadExactlyAsync(received, cts.Token);
        await transport.DisposeAsync(); // waits for the pumps: the transcript is complete

        Assert.Equal(transport.Transcript.DeliveredChunkSizes(FaultDirection.Upstream), proxied);
        Assert.True(proxied.Count > 10, $"sliced into {proxied.Count}");
    }

    [Fact]
    public async Task A_held_stall_waits_for_release_and_a_cleared_plan_reaches_no_new_connection()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using var rig = new LoopbackProxyRig();
        AppliedFaultPlan applied = rig.Proxy.ApplyPlan(new FaultPlan(1, [new StallFault(0)]));
        rig.Proxy.ResetToxics(); // Toxiproxy's reset removes toxics, not the plan
        Assert.Same(applied, rig.Proxy.Plan);

        var (client, upstream) = await rig.ConnectAsync(cts.Token);
        using (client)
        using (upstream)
        {
            await client.GetStream().WriteAsync(new byte[50], cts.Token);
            var read = upstream.GetStream().ReadAsync(new byte[50], cts.Token).AsTask();
            await Task.Delay(200, cts.Token);
            Assert.False(read.IsCompleted, "the stall let bytes through before it was released");
            applied.Release();
            Assert.True(await read.WaitAsync(cts.Token) > 0);
        }

        rig.Proxy.ClearPlan();
        Assert.Null(rig.Proxy.Plan);
        var seen = new TaskCompletionSource<IReadOnlyList<Fault>>(TaskCreationOptions.RunContinuationsAsynchronously);
        rig.Proxy.ForwardingStarting = c => seen.TrySetResult(c.UpstreamFaults.Current);
        var (later, laterUpstream) = await rig.ConnectAsync(cts.Token);
        using (later)
        using (laterUpstream)
            Assert.Empty(await seen.Task.WaitAsync(cts.Token));
        Assert.Equal(1, applied.ConnectionCount);
    }
}
