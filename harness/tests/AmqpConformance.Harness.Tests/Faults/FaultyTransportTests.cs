using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using AmqpConformance.Harness.Faults;
using static AmqpConformance.Harness.Tests.Faults.FaultyTransportTestKit;

namespace AmqpConformance.Harness.Tests.Faults;

[Trait("Area", "Faults")]
public sealed class FaultyTransportTests
{
    private static readonly FaultyTransportOptions Virtual = new() { TimeMode = FaultTimeMode.Virtual };

    private static async Task<(IReadOnlyList<TranscriptEntry> Transcript, byte[] Delivered)> RunOnceAsync(
        FaultPlan plan,
        byte[] data,
        int[] flushes
    )
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(plan, Virtual);
        Task<(byte[] Bytes, List<long> Reads, Exception? Error)> reading = ReadAllAsync(
            transport.BrokerSide.Input,
            cts.Token
        );
        await WriteInFlushesAsync(transport.ClientSide.Output, data, flushes, cts.Token);
        await transport.ClientSide.Output.CompleteAsync();
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        return (transport.Transcript.For(FaultDirection.Upstream), bytes);
    }

    [Fact]
    public async Task Bytes_in_transit_share_no_memory_with_the_process_wide_array_pool()
    {
        // A writer that returned arrays to ArrayPool<byte>.Shared and still writes into them (or returned one twice)
        // hands that memory to the pool's next renters: the transport's buffers must not be among them.
        var returned = new List<byte[]>();
        for (int i = 0; i < 64; i++)
            returned.Add(ArrayPool<byte>.Shared.Rent(4096));
        foreach (var array in returned)
            ArrayPool<byte>.Shared.Return(array);
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(FaultPlan.Empty, Virtual);
        byte[] data = Pattern(3000);
        data.CopyTo(transport.ClientSide.Output.GetMemory(data.Length));
        transport.ClientSide.Output.Advance(data.Length); // written, not flushed: the bytes sit in the transport's buffer
        foreach (var array in returned)
            array.AsSpan().Fill(0xEE);
        Task<(byte[] Bytes, List<long> Reads, Exception? Error)> reading = ReadAllAsync(
            transport.BrokerSide.Input,
            cts.Token
        );
        await transport.ClientSide.Output.FlushAsync(cts.Token);
        await transport.ClientSide.Output.CompleteAsync();
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(data, bytes);
    }

    [Fact]
    public async Task Same_seed_replays_identically_and_another_seed_does_not()
    {
        byte[] data = Pattern(20_000);
        int[] flushes = [1, 700, 33, 4096, 5, 2000];
        FaultPlan plan = new(1234, [new SlicerFault(64, 40, 20), new LatencyFault(3, 2), new BandwidthFault(500)]);

        var first = await RunOnceAsync(plan, data, flushes);
        var second = await RunOnceAsync(plan, data, flushes);
        var other = await RunOnceAsync(plan with { Seed = 4321 }, data, flushes);

        Assert.Equal(data, first.Delivered);
        Assert.Equal(data, other.Delivered);
        Assert.Equal(first.Transcript, second.Transcript);
        IReadOnlyList<long> boundaries =
        [
            .. first.Transcript.Where(e => e.Kind == TranscriptEventKind.Delivered).Select(e => e.Length),
        ];
        IReadOnlyList<long> otherBoundaries =
        [
            .. other.Transcript.Where(e => e.Kind == TranscriptEventKind.Delivered).Select(e => e.Length),
        ];
        Assert.True(boundaries.Count > 200, $"expected many slices, got {boundaries.Count}");
        Assert.NotEqual(boundaries, otherBoundaries);
        Assert.NotEqual(first.Transcript.Select(e => e.Delay), other.Transcript.Select(e => e.Delay));
        Assert.All(boundaries, b => Assert.InRange(b, 1, 104));
        Assert.Equal(data.Length, boundaries.Sum());
    }

    [Fact]
    public async Task Replay_does_not_depend_on_how_fast_the_receiver_reads()
    {
        byte[] data = Pattern(5000);
        FaultPlan plan = new(9, [new SlicerFault(50, 20)]);
        var fast = await RunOnceAsync(plan, data, [300]);

        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(plan, Virtual);
        Task writing = Task.Run(async () =>
        {
            await WriteInFlushesAsync(transport.ClientSide.Output, data, [300], cts.Token);
            await transport.ClientSide.Output.CompleteAsync();
        });
        await writing.WaitAsync(cts.Token); // everything is written (5000 bytes, under the pause threshold) before anyone reads
        var (bytes, _, error) = await ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        Assert.Null(error);
        Assert.Equal(data, bytes);
        Assert.Equal(fast.Transcript, transport.Transcript.For(FaultDirection.Upstream));
    }

    [Fact]
    public async Task Reset_after_n_bytes_delivers_the_prefix_then_fails_the_writer()
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new ResetPeerFault(1000)]), Virtual);
        var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        var clientReading = ReadAllAsync(transport.ClientSide.Input, cts.Token);
        byte[] data = Pattern(3000);

        Exception e = await Assert.ThrowsAsync<TransportResetException>(async () =>
        {
            for (int i = 0; i < 30; i++)
                await transport.ClientSide.Output.WriteAsync(data.AsMemory(i * 100, 100), cts.Token);
            await transport.Completion.WaitAsync(cts.Token); // the pump has reached the reset point
            await transport.ClientSide.Output.WriteAsync(data.AsMemory(0, 1), cts.Token);
        });
        Assert.Contains("reset_peer", e.Message);
        var (bytes, _, error) = await reading;
        Assert.Null(error); // the broker's stream ends after the partial data
        Assert.Equal(data.AsSpan(0, 1000).ToArray(), bytes);
        var client = await clientReading;
        Assert.IsType<TransportResetException>(client.Error);
        Assert.True(transport.Termination!.IsReset);
        Assert.Contains(transport.Transcript.For(FaultDirection.Upstream), x =>
            x.Kind == TranscriptEventKind.Reset && x.Offset == 1000
        );
    }

    [Fact]
    public async Task Limit_data_closes_after_exactly_n_bytes()
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new LimitDataFault(777)]), Virtual);
        var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        byte[] data = Pattern(2000);
        await Assert.ThrowsAsync<TransportClosedException>(async () =>
        {
            for (int i = 0; i < 20; i++)
                await transport.ClientSide.Output.WriteAsync(data.AsMemory(i * 100, 100), cts.Token);
            await transport.Completion.WaitAsync(cts.Token); // the pump has reached the limit
            await transport.ClientSide.Output.WriteAsync(data.AsMemory(0, 1), cts.Token);
        });
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(data.AsSpan(0, 777).ToArray(), bytes);
        Assert.False(transport.Termination!.IsReset);
    }

    [Fact]
    public async Task An_orderly_close_can_reach_the_sender_as_a_completed_flush_instead_of_an_exception()
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(
            new FaultPlan(1, [new LimitDataFault(300)]),
            Virtual with
            {
                OrderlyCloseAsCompletion = true,
            }
        );
        var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        byte[] data = Pattern(1000);
        FlushResult result = default;
        for (int i = 0; i < 10 && !result.IsCompleted; i++)
            result = await transport.ClientSide.Output.WriteAsync(data.AsMemory(i * 100, 100), cts.Token);
        await transport.Completion.WaitAsync(cts.Token); // the pump has reached the limit
        if (!result.IsCompleted)
            result = await transport.ClientSide.Output.WriteAsync(data.AsMemory(0, 1), cts.Token);
        Assert.True(result.IsCompleted, "the sender learns of the close from a completed flush, not an exception");
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(data.AsSpan(0, 300).ToArray(), bytes);
    }

    [Fact]
    public async Task Black_hole_swallows_bytes_until_released_then_closes()
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new BlackHoleFault(0, 300)]), Virtual);
        var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        byte[] data = Pattern(1000);
        await transport.ClientSide.Output.WriteAsync(data, cts.Token);
        await transport.ClientSide.Output.WriteAsync(data, cts.Token); // still accepted: the hole reads and drops
        while (
            transport
                .Transcript.For(FaultDirection.Upstream)
                .Where(e => e.Kind == TranscriptEventKind.Dropped)
                .Sum(e => e.Length) < 1700
        )
            await Task.Delay(5, cts.Token);
        Assert.False(reading.IsCompleted);
        Assert.Null(transport.Termination);

        transport.Release();
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(data.AsSpan(0, 300).ToArray(), bytes);
        Assert.Contains("removed", transport.Termination!.Reason);
        await Assert.ThrowsAsync<TransportClosedException>(async () =>
            await transport.ClientSide.Output.WriteAsync(data, cts.Token)
        );
    }

    [Fact]
    public async Task Stall_until_released_blocks_the_writer_with_bounded_backlog()
    {
        using var cts = Timeout();
        var options = Virtual with { PauseWriterThreshold = 8 * 1024, ResumeWriterThreshold = 4 * 1024 };
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new StallFault(500)]), options);
        var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        byte[] data = Pattern(64 * 1024);
        int written = 0;
        Task writing = Task.Run(async () =>
        {
            for (int i = 0; i < 64; i++)
            {
                await transport.ClientSide.Output.WriteAsync(data.AsMemory(i * 1024, 1024), cts.Token);
                Interlocked.Add(ref written, 1024);
            }
            await transport.ClientSide.Output.CompleteAsync();
        });
        // Wait for the held state itself, not for a time: the stall point delivered and the backlog at the pause
        // threshold.
        while (transport.UpstreamDeliveredBytes < 500 || transport.UpstreamBacklogBytes < 8 * 1024)
            await Task.Delay(5, cts.Token);
        Assert.False(writing.IsCompleted, "the writer should be held by backpressure");
        Assert.InRange(Volatile.Read(ref written), 1024, 10 * 1024);
        Assert.Equal(500, transport.UpstreamDeliveredBytes);
        Assert.InRange(transport.PeakUpstreamBacklogBytes, 1, 8 * 1024 + 1024);

        transport.Release();
        await writing.WaitAsync(cts.Token);
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(data, bytes);
        Assert.Contains(transport.Transcript.For(FaultDirection.Upstream), e =>
            e.Kind == TranscriptEventKind.StallEnded && e.Offset == 500
        );
    }

    [Fact]
    public async Task Real_time_latency_delays_delivery()
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new LatencyFault(60)]));
        var start = Stopwatch.StartNew();
        await transport.ClientSide.Output.WriteAsync(Pattern(10), cts.Token);
        ReadResult r = await transport.BrokerSide.Input.ReadAsync(cts.Token);
        TimeSpan elapsed = start.Elapsed;
        Assert.Equal(10, r.Buffer.Length);
        Assert.True(elapsed >= TimeSpan.FromMilliseconds(60 * 0.8), $"delivered after {elapsed.TotalMilliseconds} ms");
    }

    [Fact]
    public async Task Virtual_time_counts_delays_without_sleeping()
    {
        byte[] data = Pattern(200_000);
        var start = Stopwatch.StartNew();
        var run = await RunOnceAsync(
            new FaultPlan(3, [new BandwidthFault(10), new LatencyFault(1000)]),
            data,
            [10_000]
        );
        Assert.Equal(data, run.Delivered);
        // 200 kB at 10 kB/s is 20 s of planned delay plus 1 s latency per chunk, none of it slept.
        double planned = run.Transcript.Sum(e => e.Delay.TotalSeconds);
        Assert.InRange(planned, 20 + 20 - 0.01, 20 + 20 + 0.01);
        Assert.True(start.Elapsed < TimeSpan.FromSeconds(10));
        Assert.All(run.Transcript.Where(e => e.Kind == TranscriptEventKind.Delivered), e =>
            Assert.InRange(e.Length, 1, 1000)
        );
    }

    [Fact]
    public async Task Downstream_faults_act_on_what_the_broker_sends()
    {
        using var cts = Timeout();
        var plan = new FaultPlan(5, [new SlicerFault(3) { Direction = FaultDirection.Downstream }]);
        await using var transport = FaultyTransport.Create(plan, Virtual);
        var reading = ReadAllAsync(transport.ClientSide.Input, cts.Token);
        await transport.BrokerSide.Output.WriteAsync(Pattern(30), cts.Token);
        await transport.BrokerSide.Output.CompleteAsync();
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(Pattern(30), bytes);
        Assert.Equal(Enumerable.Repeat(3L, 10), transport.Transcript.DeliveredChunkSizes(FaultDirection.Downstream));
        Assert.Empty(transport.Transcript.DeliveredChunkSizes(FaultDirection.Upstream));
    }

    [Fact]
    public async Task Real_time_black_hole_with_timeout_closes_the_connection()
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new BlackHoleFault(100, 10)]));
        var start = Stopwatch.StartNew();
        var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        await transport.ClientSide.Output.WriteAsync(Pattern(50), cts.Token);
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(Pattern(50).AsSpan(0, 10).ToArray(), bytes);
        Assert.True(
            start.Elapsed >= TimeSpan.FromMilliseconds(80),
            $"closed after {start.Elapsed.TotalMilliseconds} ms"
        );
        Assert.Contains("timed out", transport.Termination!.Reason);
    }

    [Fact]
    public async Task Slow_close_delays_the_end_of_stream()
    {
        using var cts = Timeout();
        await using var transport = FaultyTransport.Create(new FaultPlan(1, [new SlowCloseFault(120)]));
        var reading = ReadAllAsync(transport.BrokerSide.Input, cts.Token);
        await transport.ClientSide.Output.WriteAsync(Pattern(5), cts.Token);
        var start = Stopwatch.StartNew();
        await transport.ClientSide.Output.CompleteAsync();
        var (bytes, _, error) = await reading;
        Assert.Null(error);
        Assert.Equal(Pattern(5), bytes);
        Assert.True(
            start.Elapsed >= TimeSpan.FromMilliseconds(100),
            $"end arrived after {start.Elapsed.TotalMilliseconds} ms"
        );
    }
}
