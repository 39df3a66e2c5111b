using System.Diagnostics;
using System.Globalization;
using System.IO.Pipelines;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Transport;
using AmqpConformance.TestSupport;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// <c>inmemory</c> mode: the broker's receive path alone. One connection over in-memory pipes whose continuations run
/// inline, so the client's write runs the broker's receive loop on the same thread: no sockets, no thread hand-offs.
/// Each round opens a connection, writes the same unroutable basic.publish commands as the ingest benchmark
/// (frame_max 131072, every frame recorded) and waits for a basic.qos round trip behind them; prints wall and process
/// CPU time per message. Being single-threaded it also suits counting instructions, which a loaded machine does not
/// disturb: run it under <c>valgrind --tool=callgrind</c> with 1 and with 3 rounds and divide the difference by two
/// rounds' messages (<c>DOTNET_TieredCompilation=0</c> keeps the JIT out of the difference).
/// Options (parsed in <see cref="BenchmarkProgram"/>): <c>--size 256 --messages 500000 --rounds 4</c>.
/// </summary>
internal static class InMemoryIngestBenchmark
{
    private const int FrameMax = 131072;

    public static async Task<int> RunAsync(int size, int messages, int rounds)
    {
        var batch = new PublishBatch(size, Math.Max(1, 4 * 1024 * 1024 / (size + 64)), FrameMax);
        int repeats = Math.Max(1, messages / batch.Commands);
        long perRound = (long)repeats * batch.Commands;
        // The handshake must not time out under valgrind, which runs everything ~50x slower.
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions
            {
                FrameMax = FrameMax,
                HeartbeatSeconds = 0,
                KeepPublished = false,
                HandshakeTimeout = Timeout.InfiniteTimeSpan,
            }
        );
        var inline = new PipeOptions(
            readerScheduler: PipeScheduler.Inline,
            writerScheduler: PipeScheduler.Inline,
            useSynchronizationContext: false
        );
        for (int round = 0; round < rounds; round++)
        {
            var toBroker = new Pipe(
                new PipeOptions(
                    readerScheduler: PipeScheduler.Inline,
                    writerScheduler: PipeScheduler.Inline,
                    minimumSegmentSize: 65536,
                    pauseWriterThreshold: 8 << 20,
                    resumeWriterThreshold: 4 << 20,
                    useSynchronizationContext: false
                )
            );
            var fromBroker = new Pipe(inline);
            var connection = broker.Serve(new DuplexPipe(toBroker.Reader, fromBroker.Writer));
            TimeSpan cpu;
            Stopwatch watch;
            await using (var client = AmqpTestClient.Over(fromBroker.Reader, toBroker.Writer))
            {
                await client.HandshakeAsync();
                await client.OpenChannelAsync(1, default);
                TimeSpan cpuBefore = Process.GetCurrentProcess().TotalProcessorTime;
                watch = Stopwatch.StartNew();
                await client.BlastAsync(batch.Bytes, repeats, default);
                await client.SyncAsync(default);
                watch.Stop();
                cpu = Process.GetCurrentProcess().TotalProcessorTime - cpuBefore;
            }
            // The connection's end (its summary walks every frame) and the garbage it leaves belong to no round: let
            // both happen before the next one starts, or they run beside it on the other core and move its figures.
            await connection.Completion;
            GC.Collect();
            GC.WaitForPendingFinalizers();
            if (connection.Log.Findings() is { Count: > 0 } findings)
                throw new InvalidOperationException($"the broker flagged the benchmark's own traffic: {findings[0]}");
            Console.WriteLine(
                string.Create(
                    CultureInfo.InvariantCulture,
                    $"round {round}: {perRound} messages of {size} B, {connection.Log.NextSequence} frames, wall {watch.Elapsed.TotalNanoseconds / perRound:F0} ns/msg, cpu {cpu.TotalNanoseconds / perRound:F0} ns/msg"
                )
            );
        }
        return 0;
    }
}
