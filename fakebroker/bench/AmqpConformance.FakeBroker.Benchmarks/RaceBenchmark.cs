using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using AmqpConformance.Protocol;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// <c>race</c> mode: the fake broker against a local RabbitMQ, side by side in one run, with the same publisher
/// (<see cref="ConfirmPublisher"/>: confirms on, a bounded window, publishing to an exclusive queue of its own), and
/// the same publisher against a <see cref="ConfirmingSink"/> (reads, walks frame headers, acks; stores nothing), the
/// ceiling any storing broker could reach over this socket with this publisher. For each body size and connection count
/// it measures RabbitMQ, then the sink, then a fresh in-process fake broker, each after a warm-up that is not printed
/// (the sink's and the fake broker's repeated until the JIT compiles nothing more, <see cref="JitWarmUp"/>, then run
/// once more at the largest connection count, so the process's shared pools are filled as in a broker that ran a
/// while), and prints one table row: messages/s and body MB/s (10^6 bytes) of each, the ratio fake/RabbitMQ of
/// messages/s and the ceiling sink/RabbitMQ; then a line of costs per message (CPU µs of this process, plus RabbitMQ's
/// Erlang VM for the RabbitMQ column, and GC pause share, collections per generation and bytes allocated for the
/// in-process contestants); then what the fake broker itself allocated and held per message and per frame
/// (<see cref="BrokerShare"/>; the fake's measurement starts and ends with full collections outside the clock, to tell
/// what it held). Then one verdict per goal (fake >= 10x RabbitMQ at 256 B, >= 3x at 1 MiB; the worst connection count
/// counts), each with whether the sink itself reaches the goal. When RabbitMQ does not answer (refused, no handshake)
/// it says why and measures the others alone. Exits 0 (goals met or not: this is a benchmark), 2 on bad options
/// (<see cref="RaceOptions.CreateCommand"/>), 1 if the fake broker's or the sink's measurement fails. Options:
/// <see cref="RaceOptions"/>.
/// </summary>
internal static class RaceBenchmark
{
    private const int FrameMax = 131072; // RabbitMQ's default, which it offers in connection.tune
    private static readonly (int Size, double Ratio)[] Goals = [(256, 10), (1024 * 1024, 3)];

    public static async Task<int> RunAsync(RaceOptions options)
    {
        try
        {
            return await RaceAsync(options);
        }
        catch (Exception e)
        {
            Console.Error.WriteLine($"race: failed: {e.GetType().Name}: {e.Message}");
            return 1;
        }
    }

    private static async Task<int> RaceAsync(RaceOptions options)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(15));
        CancellationToken ct = timeout.Token;
        var clock = Stopwatch.StartNew();

        (bool rabbitUp, string rabbitWhat) = await ProbeAsync(options, ct);
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"race: fake broker vs {(rabbitUp ? $"{rabbitWhat} at {options.RabbitMqText}" : "RabbitMQ (not measured)")}; confirms on, publishing to an exclusive queue per connection; "
                    + $"~{options.Megabytes} MB or at most {options.MaxMessages} messages per measurement, window {options.Window} / {options.WindowMegabytes} MB per connection; warm-up {options.WarmupPercent} % of a cell; "
                    + $"{Environment.ProcessorCount} cores, load {LoadAverage()}; {JitWarmUp.CodeGeneration()}, each size warmed up until the JIT settled"
            )
        );
        if (options.RabbitMq is null)
            Console.WriteLine("RabbitMQ not measured (--rabbitmq none); measuring the sink and the fake broker alone");
        else if (!rabbitUp)
            Console.WriteLine(
                $"RabbitMQ not reachable at {options.RabbitMqText}: {rabbitWhat}; measuring the sink and the fake broker alone"
            );

        Console.WriteLine(
            $"{"body", -8} {"conns", 5} {"rabbit msg/s", 13} {"rabbit MB/s", 12} {"sink msg/s", 11} {"sink MB/s", 10} {"fake msg/s", 11} {"fake MB/s", 10} {"fake/rabbit", 12} {"sink/rabbit", 12} {"fake/sink", 10}"
        );
        using AllocationSampler? sampler = options.TraceAllocations ? new AllocationSampler() : null;
        var ratios = new Dictionary<int, List<double>>();
        var ceilings = new Dictionary<int, List<double>>();
        foreach (int size in options.Sizes)
        {
            int window = options.WindowFor(size);
            int warmMessages = options.WarmupMessages(size, window);
            if (rabbitUp)
                await TryMeasureAsync(options.RabbitMq!, options.RabbitMqHandshake, size, 1, warmMessages, window, ct);
            var warmUp = await JitWarmUp.UntilSettledAsync(async () =>
            {
                await MeasureSinkAsync(size, 1, warmMessages, window, ct);
                await MeasureFakeAsync(size, 1, warmMessages, window, ct);
            });
            if (!warmUp.Settled)
                Console.WriteLine($"warm-up at {SizeName(size)}: {warmUp}");
            // Then once at the largest connection count, unprinted: the pools all brokers of the process share (receive
            // blocks, body arrays, queue chunks) then hold what that many connections at once need, as in a broker that
            // has run a while. Without it the first cell with more connections than the warm-up's one paid for filling
            // them (at 1 MiB, six more 256 KiB receive blocks: ~13 KB of its ~15 KB per message).
            int widest = options.Connections.Max();
            if (widest > 1)
            {
                await MeasureSinkAsync(size, widest, warmMessages, window, ct);
                await MeasureFakeAsync(size, widest, warmMessages, window, ct);
            }
            foreach (int connections in options.Connections)
            {
                int messages = Math.Max(connections, options.MessagesPerCell(size));
                Result? rabbit = null;
                if (rabbitUp)
                {
                    (rabbit, string? failure) = await TryMeasureAsync(
                        options.RabbitMq!,
                        options.RabbitMqHandshake,
                        size,
                        connections,
                        messages,
                        window,
                        ct
                    );
                    if (failure is not null)
                        Console.WriteLine($"RabbitMQ failed at {SizeName(size)} x {connections}: {failure}");
                }
                Result sink = await MeasureSinkAsync(size, connections, messages, window, ct, sampler);
                Result fake = await MeasureFakeAsync(size, connections, messages, window, ct, sampler);
                IReadOnlyList<(string Type, long Bytes)> sampled = fake.Sampled;
                var sinkSampled = sink.Sampled.ToDictionary(p => p.Type, p => p.Bytes);
                double? ratio = rabbit is { } r ? fake.MessagesPerSecond / r.MessagesPerSecond : null;
                double? ceiling = rabbit is { } r2 ? sink.MessagesPerSecond / r2.MessagesPerSecond : null;
                if (ratio is { } q)
                    (ratios.TryGetValue(size, out var list) ? list : ratios[size] = []).Add(q);
                if (ceiling is { } c)
                    (ceilings.TryGetValue(size, out var list) ? list : ceilings[size] = []).Add(c);
                Console.WriteLine(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"{SizeName(size), -8} {connections, 5} {Column(rabbit?.MessagesPerSecond, 13)} {Column(rabbit?.MegabytesPerSecond, 12)} "
                            + $"{sink.MessagesPerSecond, 11:F0} {sink.MegabytesPerSecond, 10:F0} {fake.MessagesPerSecond, 11:F0} {fake.MegabytesPerSecond, 10:F0} "
                            + $"{Ratio(ratio), 12} {Ratio(ceiling), 12} {Ratio(fake.MessagesPerSecond / sink.MessagesPerSecond), 10}"
                    )
                );
                Console.WriteLine(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"  cpu µs/msg: rabbit {(rabbit is { } rr ? Costs(rr, beam: true) : "-")}; sink {Costs(sink, beam: false)}; fake {Costs(fake, beam: false)}"
                    )
                );
                Console.WriteLine(BrokerShare(fake, sink));
                foreach ((string type, long bytes) in sampled.Take(8))
                    Console.WriteLine(
                        string.Create(
                            CultureInfo.InvariantCulture,
                            $"    fake, sampled {bytes / (double)messages, 10:F1} B/msg  (sink {sinkSampled.GetValueOrDefault(type) / (double)messages, 8:F1})  {type}"
                        )
                    );
                if (rabbit?.Nacked + fake.Nacked + sink.Nacked is > 0)
                    Console.WriteLine(
                        $"  nacked: RabbitMQ {rabbit?.Nacked ?? 0}, sink {sink.Nacked}, fake {fake.Nacked} (counted as settled)"
                    );
            }
        }

        foreach ((int size, double goal) in Goals)
        {
            Console.WriteLine(Verdict(size, goal, options, rabbitUp, ratios));
            if (
                options.Sizes.Contains(size)
                && ceilings.TryGetValue(size, out List<double>? sinkRatios)
                && sinkRatios.Count > 0
            )
            {
                double worst = sinkRatios.Min();
                string reach =
                    worst >= goal
                        ? "the goal is within what the socket and publisher allow"
                        : "the goal is beyond what the socket and publisher allow on this machine";
                Console.WriteLine(
                    string.Create(
                        CultureInfo.InvariantCulture,
                        $"  ceiling sink/RabbitMQ at {SizeName(size)}: worst {worst:F2}x: {reach}"
                    )
                );
            }
        }
        Console.WriteLine(
            string.Create(
                CultureInfo.InvariantCulture,
                $"run took {clock.Elapsed.TotalSeconds:F0} s; load {LoadAverage()}"
            )
        );
        return 0;
    }

    /// <summary>Whether RabbitMQ takes a whole publisher setup (handshake, channel, confirm.select, queue.declare)
    /// within 5 s; with it its product and version, without it why not.</summary>
    private static async Task<(bool Up, string What)> ProbeAsync(RaceOptions options, CancellationToken ct)
    {
        if (options.RabbitMq is null)
            return (false, "--rabbitmq none");
        using var probe = CancellationTokenSource.CreateLinkedTokenSource(ct);
        probe.CancelAfter(TimeSpan.FromSeconds(5));
        try
        {
            await using ConfirmPublisher publisher = await ConfirmPublisher.OpenAsync(
                options.RabbitMq,
                options.RabbitMqHandshake,
                256,
                1,
                probe.Token
            );
            return (true, publisher.ServerProduct);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            return (false, "no complete handshake within 5 s");
        }
        catch (Exception e) when (e is SocketException or IOException or PeerExpectationException)
        {
            return (false, Reason(e));
        }
    }

    /// <summary>A RabbitMQ measurement, or why it failed (the run goes on without it).</summary>
    private static async Task<(Result? Result, string? Failure)> TryMeasureAsync(
        EndPoint endpoint,
        TestPeerHandshake handshake,
        int size,
        int connections,
        int messages,
        int window,
        CancellationToken ct
    )
    {
        try
        {
            return (await MeasureAsync(endpoint, handshake, size, connections, messages, window, ct), null);
        }
        catch (Exception e) when (e is SocketException or IOException or PeerExpectationException)
        {
            return (null, Reason(e));
        }
    }

    /// <summary>A fresh fake broker on 127.0.0.1: default options but frame_max 131072 (RabbitMQ's, stated here though
    /// it is the default too) and <see cref="FakeAmqpBrokerOptions.KeepPublished"/> off (it would keep every body of a long
    /// run twice: in the queue and in the connection's list of publishes). Fails if the broker flagged the benchmark's
    /// own traffic.</summary>
    private static async Task<Result> MeasureFakeAsync(
        int size,
        int connections,
        int messages,
        int window,
        CancellationToken ct,
        AllocationSampler? sampler = null
    )
    {
        await using FakeAmqpBroker broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { FrameMax = FrameMax, KeepPublished = false },
            ct
        );
        Result result = await MeasureAsync(
            broker.Endpoint,
            TestPeerHandshake.Default,
            size,
            connections,
            messages,
            window,
            ct,
            sampler,
            () => broker.Connections.Sum(c => c.Log.NextSequence)
        );
        foreach (BrokerConnection connection in broker.Connections)
            if (connection.Log.Findings() is { Count: > 0 } findings)
                throw new InvalidOperationException(
                    $"the fake broker flagged the benchmark's own traffic: {findings[0]}"
                );
        return result;
    }

    /// <summary>A fresh <see cref="ConfirmingSink"/>; fails if it found the publisher's stream malformed.</summary>
    private static async Task<Result> MeasureSinkAsync(
        int size,
        int connections,
        int messages,
        int window,
        CancellationToken ct,
        AllocationSampler? sampler = null
    )
    {
        Result result;
        await using (var sink = new ConfirmingSink())
        {
            result = await MeasureAsync(
                sink.Endpoint,
                TestPeerHandshake.Default,
                size,
                connections,
                messages,
                window,
                ct,
                sampler
            );
            if (sink.Failure is { } failure)
                throw new InvalidOperationException($"the confirming sink failed: {failure.Message}", failure);
        }
        return result;
    }

    /// <summary>Sets up <paramref name="connections"/> publishers, then times them publishing
    /// <paramref name="messages"/> in all (split evenly) at once, until the last is confirmed. Setup and closing are
    /// not timed, nor sampled by <paramref name="sampler"/> (started once the publishers are set up, stopped with the
    /// clock: <see cref="Result.Sampled"/>).</summary>
    private static async Task<Result> MeasureAsync(
        EndPoint endpoint,
        TestPeerHandshake handshake,
        int size,
        int connections,
        int messages,
        int window,
        CancellationToken ct,
        AllocationSampler? sampler = null,
        Func<long>? framesRecorded = null
    )
    {
        var publishers = new List<ConfirmPublisher>();
        try
        {
            for (int c = 0; c < connections; c++)
                publishers.Add(await ConfirmPublisher.OpenAsync(endpoint, handshake, size, window, ct));
            // For the fake broker, what the process holds before and after (after full collections, outside the timed
            // part): what the broker kept of the cell (messages, bodies, frame entries), as opposed to garbage.
            long heldBefore = framesRecorded is null ? 0 : GC.GetTotalMemory(forceFullCollection: true);
            sampler?.Start();
            long framesBefore = framesRecorded?.Invoke() ?? 0;
            CpuSample before = CpuSample.Take();
            var watch = Stopwatch.StartNew();
            long[] nacked = await Task.WhenAll(
                publishers.Select(
                    (p, c) =>
                        Task.Run(
                            () => p.PublishAsync(messages / connections + (c < messages % connections ? 1 : 0), ct),
                            ct
                        )
                )
            );
            watch.Stop();
            CpuCost cost = CpuSample.Take() - before;
            long frames = (framesRecorded?.Invoke() ?? 0) - framesBefore;
            long held = framesRecorded is null ? 0 : GC.GetTotalMemory(forceFullCollection: true) - heldBefore;
            return new Result(messages, (long)messages * size, watch.Elapsed, nacked.Sum(), cost)
            {
                Sampled = sampler is null ? [] : await sampler.StopAsync(),
                Frames = frames,
                Held = held,
            };
        }
        finally
        {
            foreach (ConfirmPublisher p in publishers)
                await p.DisposeAsync();
        }
    }

    private static string Verdict(
        int size,
        double goal,
        RaceOptions options,
        bool rabbitUp,
        Dictionary<int, List<double>> ratios
    )
    {
        string name = string.Create(
            CultureInfo.InvariantCulture,
            $"goal fake >= {goal:0}x RabbitMQ msg/s at {SizeName(size)}"
        );
        if (!options.Sizes.Contains(size))
            return $"{name}: not measured ({SizeName(size)} not in --sizes)";
        if (!rabbitUp || !ratios.TryGetValue(size, out List<double>? list) || list.Count == 0)
            return $"{name}: not judged (RabbitMQ not measured)";
        double worst = list.Min();
        string partial =
            list.Count < options.Connections.Count
                ? $", {list.Count} of {options.Connections.Count} connection counts measured"
                : "";
        return string.Create(
            CultureInfo.InvariantCulture,
            $"{name}: worst {worst:F2}x{partial}: {(worst >= goal ? "met" : "NOT met")}"
        );
    }

    /// <summary>Why a RabbitMQ step failed, in one line: the broker's close (code and text) when it closed, else the
    /// exception.</summary>
    private static string Reason(Exception e) =>
        e is PeerExpectationException { Method: ConnectionClose c }
            ? $"connection.close {c.ReplyCode.ToString(CultureInfo.InvariantCulture)} {c.ReplyText}"
        : e is PeerExpectationException { Method: ChannelClose ch }
            ? $"channel.close {ch.ReplyCode.ToString(CultureInfo.InvariantCulture)} {ch.ReplyText}"
        : $"{e.GetType().Name}: {e.Message}";

    private static string Ratio(double? ratio) =>
        ratio is { } x ? x.ToString("F2", CultureInfo.InvariantCulture) + "x" : "-";

    /// <summary>"1234.5 (gc pause 4 %, gen0/1/2 3/3/2, alloc 612 B/msg, page faults 0.1/msg)" (collections counted
    /// per generation reached, so a gen2 one counts in all three; bytes allocated by all threads, exact), or for RabbitMQ "1234.5 (publisher 400.1 + beam
    /// 834.4)": CPU µs per message.</summary>
    private static string Costs(Result result, bool beam)
    {
        double PerMessage(TimeSpan t) => t.TotalMicroseconds / result.Messages;
        CpuCost c = result.Cost;
        if (beam)
            return c.Beam is { } b
                ? string.Create(
                    CultureInfo.InvariantCulture,
                    $"{PerMessage(c.Process + b):F1} (publisher {PerMessage(c.Process):F1} + beam {PerMessage(b):F1})"
                )
                : string.Create(
                    CultureInfo.InvariantCulture,
                    $"publisher {PerMessage(c.Process):F1} (beam.smp not readable)"
                );
        return string.Create(
            CultureInfo.InvariantCulture,
            $"{PerMessage(c.Process):F1} (gc pause {c.GcPause.TotalSeconds / result.Elapsed.TotalSeconds:P0}, gen0/1/2 {c.Gen0}/{c.Gen1}/{c.Gen2}, alloc {(double)c.Allocated / result.Messages:F0} B/msg, "
                + $"page faults {(c.MinorFaults is { } f ? (f / (double)result.Messages).ToString("F1", CultureInfo.InvariantCulture) : "-")}/msg)"
        );
    }

    /// <summary>"  fake broker's own: alloc 375 B/msg (fake 826 - sink 452), held 290 B/msg; 12.0 frames/msg: 31.2 B/frame
    /// allocated, 7.0 B/frame not held": what the fake broker itself allocated per message over the timed part, taken as
    /// the process's allocations (all threads, <see cref="GC.GetTotalAllocatedBytes(bool)"/> exact) in the fake's
    /// measurement less those in the sink's (the same publishers against a server that allocates next to nothing); how
    /// much of it the broker still held after the cell (<see cref="Result.Held"/>: its stored messages, small bodies,
    /// queue chunks, frame-log entries; large bodies reuse pooled arrays and add nothing); and both per frame its logs
    /// recorded (received and sent). Allocation not held is garbage the collector must clear. Noisy where a cell is
    /// short: the publishers' own share differs a little between runs.</summary>
    private static string BrokerShare(Result fake, Result sink)
    {
        double perMessage =
            (fake.Cost.Allocated - sink.Cost.Allocated * (double)fake.Messages / sink.Messages) / fake.Messages;
        double heldPerMessage = fake.Held / (double)fake.Messages;
        double framesPerMessage = fake.Frames / (double)fake.Messages;
        // Where the broker holds little on the heap (large bodies reuse pooled arrays), the publishers' and the runtime's
        // own buffers coming and going can outweigh it, even make the process smaller after the cell than before: then
        // there is no telling what the broker held.
        string held =
            fake.Held < 0
                ? "held - (the process shrank over the cell)"
                : string.Create(CultureInfo.InvariantCulture, $"held {heldPerMessage:F0} B/msg");
        string notHeld =
            fake.Held < 0
                ? ""
                : string.Create(
                    CultureInfo.InvariantCulture,
                    $", {(perMessage - heldPerMessage) / framesPerMessage:F1} B/frame not held"
                );
        return string.Create(
            CultureInfo.InvariantCulture,
            $"  fake broker's own: alloc {perMessage:F0} B/msg (fake {fake.Cost.Allocated / (double)fake.Messages:F0} - sink {sink.Cost.Allocated / (double)sink.Messages:F0}), {held}; "
                + $"{framesPerMessage:F1} frames/msg: {perMessage / framesPerMessage:F1} B/frame allocated{notHeld}"
        );
    }

    private static string Column(double? value, int width) =>
        (value is { } v ? v.ToString("F0", CultureInfo.InvariantCulture) : "-").PadLeft(width);

    private static string SizeName(int size) =>
        size >= 1 << 20 && size % (1 << 20) == 0 ? $"{size >> 20} MiB"
        : size >= 1024 && size % 1024 == 0 ? $"{size >> 10} KiB"
        : $"{size} B";

    /// <summary>The 1-minute load average where the OS tells it (/proc/loadavg), else "?".</summary>
    private static string LoadAverage()
    {
        try
        {
            return File.ReadAllText("/proc/loadavg").Split(' ')[0];
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return "?";
        }
    }

    /// <summary>One measurement: messages and body bytes confirmed in <paramref name="Elapsed"/>, of which
    /// <paramref name="Nacked"/> nacked, and what it cost (<paramref name="Cost"/>: CPU and GC over the timed
    /// part).</summary>
    private readonly record struct Result(long Messages, long BodyBytes, TimeSpan Elapsed, long Nacked, CpuCost Cost)
    {
        /// <summary>Frames the fake broker's logs recorded while the clock ran (received and sent; 0 for the
        /// others).</summary>
        public long Frames { get; init; }

        /// <summary>How much more the process held after the cell than before it (after full collections; the fake
        /// broker's only): what the broker kept of it.</summary>
        public long Held { get; init; }

        /// <summary>What the allocation sampler saw while the clock ran, by type (empty without one).</summary>
        public IReadOnlyList<(string Type, long Bytes)> Sampled { get; init; } = [];

        public double MessagesPerSecond => Messages / Elapsed.TotalSeconds;
        public double MegabytesPerSecond => BodyBytes / 1e6 / Elapsed.TotalSeconds;
    }
}
