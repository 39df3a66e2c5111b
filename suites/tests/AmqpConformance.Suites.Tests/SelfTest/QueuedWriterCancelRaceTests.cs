using System.Buffers;
using System.IO.Pipelines;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Suites.Tests.SelfTest;

/// <summary>
/// The queued zoo writers' wait for room against a cancellation landing at the same moment, many times over. On .NET 10
/// a cancelled <c>ChannelWriter.WriteAsync</c> can both throw and hand its item to the reader (dotnet/runtime#132230);
/// a writer that took the exception's word released the command and its loop then wrote and released it again. What a
/// call ends with and what the output and the pool saw must agree on every run.
/// </summary>
[Trait("Category", "SelfTest")]
public sealed class QueuedWriterCancelRaceTests
{
    private const int CommandLength = 8;

    /// <summary>The CI failure at 8afa807 (Zoo:PooledCompletion blamed for a double return and a poisoned frame,
    /// lifecycle property). Without the entry's claim, 100,000 runs here gave 5 such runs (spins 53 to 312, 8 s on the
    /// 2-core machine): the chance that this test passes a writer without the claim is under 1 in 100.</summary>
    [Fact]
    public async Task A_cancelled_wait_for_room_either_writes_its_command_once_or_releases_it_never_both()
    {
        var factory = ZooWriters.FromName("PooledCompletion")!.Factory;
        for (int run = 0; run < 100_000; run++)
            if (await RaceOnceAsync(factory, spin: run % 400) is { } failure)
                Assert.Fail($"run {run}: {failure}");
    }

    /// <summary>One run: the first call's flush stalls (the output pauses at one byte), the second fills the queue
    /// (capacity 1), the third waits for room while another thread cancels its token after <paramref name="spin"/>
    /// spins; then the output is read to the end. Returns what went wrong, or null.</summary>
    private static async Task<string?> RaceOnceAsync(FrameWriterFactory factory, int spin)
    {
        var pool = new TrackingArrayPool();
        var pipe = new Pipe(
            new PipeOptions(pauseWriterThreshold: 1, resumeWriterThreshold: 1, useSynchronizationContext: false)
        );
        var writer = factory.CreateWriter(new WriterContext(pipe.Writer, pool, 4096) { QueueCapacity = 1 });
        var first = CallAsync(writer, pool, 1, CancellationToken.None);
        var stalled = await pipe.Reader.ReadAsync(); // the first command is out and its flush waits for this reader
        pipe.Reader.AdvanceTo(stalled.Buffer.Start, stalled.Buffer.End);
        var second = CallAsync(writer, pool, 2, CancellationToken.None);
        using var cancellation = new CancellationTokenSource();
        using var start = new Barrier(2);
        var canceller = Task.Run(() =>
        {
            start.SignalAndWait();
            Thread.SpinWait(spin);
            cancellation.Cancel();
        });
        start.SignalAndWait();
        var third = CallAsync(writer, pool, 3, cancellation.Token);
        await canceller;
        var reading = ReadToEndAsync(pipe.Reader);
        var outcomes = await Task.WhenAll(first, second, third);
        await writer.DisposeAsync();
        await pipe.Writer.CompleteAsync();
        byte[] written = await reading;

        if (outcomes[0] is not null || outcomes[1] is not null)
            return $"an uncancelled call failed: {outcomes[0] ?? outcomes[1]}";
        int copies = Count(written, 3);
        if (outcomes[2] is null ? copies != 1 : outcomes[2] is not OperationCanceledException || copies != 0)
            return $"the raced call ended with {outcomes[2]?.GetType().Name ?? "success"} and its command is in the output {copies} time(s)";
        var ledger = pool.Verify();
        return ledger.IsClean ? null : $"the pool's ledger: {ledger}";
    }

    private static async Task<Exception?> CallAsync(
        IFrameWriter writer,
        ArrayPool<byte> pool,
        byte channel,
        CancellationToken token
    )
    {
        byte[] frames = pool.Rent(CommandLength);
        frames.AsSpan(0, CommandLength).Fill(channel);
        try
        {
            await writer.WriteAsync(new OutgoingCommand(channel, frames, CommandLength, hasContent: false), token);
            return null;
        }
        catch (Exception ex)
        {
            return ex;
        }
    }

    private static async Task<byte[]> ReadToEndAsync(PipeReader reader)
    {
        var all = new List<byte>();
        while (true)
        {
            var read = await reader.ReadAsync();
            foreach (var segment in read.Buffer)
                all.AddRange(segment.ToArray());
            reader.AdvanceTo(read.Buffer.End);
            if (read.IsCompleted)
                break;
        }
        await reader.CompleteAsync();
        return [.. all];
    }

    private static int Count(byte[] written, byte channel)
    {
        int count = 0;
        for (int at = 0; at + CommandLength <= written.Length; at += CommandLength)
            if (written.AsSpan(at, CommandLength).IndexOfAnyExcept(channel) < 0)
                count++;
        return count;
    }
}
