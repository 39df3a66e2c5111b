using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (own timers, own thread): a background writer (copy, complete on enqueue) whose loop is a dedicated thread
/// that sleeps in <c>Monitor.Wait(gate, 5 ms)</c> between polls of its queue (callers pulse it when they queue), writes
/// and flushes synchronously (<c>.AsTask().GetAwaiter().GetResult()</c>), and whose disposal blocks a pool thread in
/// <c>Thread.Join(1 s)</c> before giving up (cancelling the loop and the pending flush, which unblocks the thread).
/// </summary>
public sealed class MonitorWaitThreadWriter(WriterContext context) : StagedZooWriter(context, "monitor-wait-thread")
{
    /// <summary>How long the thread sleeps when it finds the queue empty.</summary>
    public static TimeSpan PollInterval { get; } = TimeSpan.FromMilliseconds(5);

    /// <summary>How long disposal waits for the thread to drain the queue and end.</summary>
    public static TimeSpan JoinWait { get; } = TimeSpan.FromSeconds(1);

    private readonly object _gate = new();
    private readonly ManualResetEventSlim _started = new();
    private Thread? _thread;

    /// <inheritdoc />
    private protected override StagedCommand Stage(OutgoingCommand command)
    {
        var staged = base.Stage(command);
        lock (_gate)
            Monitor.PulseAll(_gate); // a wake-up before the command is queued only ends one wait early
        return staged;
    }

    /// <inheritdoc />
    private protected override Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        (_thread, var ended) = ZooHelpers.StartThread("amqp-monitor-writer", () => Run(queue, inHand, stop));
        _started.Set();
        return ended;
    }

    private void Run(ChannelReader<StagedCommand> queue, List<StagedCommand> inHand, CancellationToken stop)
    {
        while (true)
        {
            stop.ThrowIfCancellationRequested();
            if (queue.TryRead(out var current))
            {
                inHand.Add(current);
                CommandFraming.Write(Context.Output, current.Command, current.Body, Context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(Context.Output.FlushAsync(stop).AsTask().GetAwaiter().GetResult());
                inHand.Clear();
                current.Release(Context.Pool);
                continue;
            }
            if (queue.Completion.IsCompleted)
                return;
            lock (_gate)
                Monitor.Wait(_gate, PollInterval);
        }
    }

    /// <inheritdoc />
    protected override async Task<bool> WaitForDrainAsync()
    {
        lock (_gate)
            Monitor.PulseAll(_gate); // the queue is closed: the thread ends once it is empty (a stop, within one poll)
        // The loop that starts the thread runs on the pool: a disposal right after construction may come before it.
        bool joined = await Task.Run(() => _started.Wait(JoinWait) && _thread!.Join(JoinWait)).ConfigureAwait(false);
        // A thread that ended on a fault leaves its commands to the loop's clean-up (LoopStopped), which runs after it
        // on the pool: disposal waits for that too, or it returns with their buffers still rented (the self-test caught
        // that).
        if (joined)
            await Loop.ConfigureAwait(false);
        return joined;
    }
}
