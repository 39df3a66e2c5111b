using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The background design two zoo writers share and get right apart from how a call takes its slot: a call copies its
/// command into a pooled buffer and completes once it is queued (on accept); the queue is bounded by a
/// <see cref="SemaphoreSlim"/> of <see cref="WriterContext.QueueCapacity"/> slots (<see cref="Slots"/>), which a call
/// takes before it queues and the loop gives back after each command's flush. The loop writes and flushes one command
/// at a time; a failed write or flush stops the writer, releases what is queued and wakes the callers waiting for a
/// slot. Disposal stops taking calls, waits for the loop within the drain timeout, then gives up (stopping the loop,
/// cancelling the pending flush) and waits for it within the give-up wait. A subclass writes <see cref="WriteAsync"/>:
/// how a call takes its slot and queues, which is where its bug is.
/// </summary>
public abstract class SlottedQueueZooWriter : IFrameWriter
{
    private readonly Channel<StagedCommand> _queue = Channel.CreateUnbounded<StagedCommand>(
        new UnboundedChannelOptions
        {
            SingleReader = true,
            SingleWriter = false,
            AllowSynchronousContinuations = false,
        }
    );
    private readonly CancellationTokenSource _stop = new();
    private readonly string _name;
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    /// <summary>Creates the writer and starts its loop.</summary>
    /// <param name="context">The writer's context.</param>
    /// <param name="name">The writer's name in its exceptions.</param>
    protected SlottedQueueZooWriter(WriterContext context, string name)
    {
        ArgumentNullException.ThrowIfNull(context);
        Context = context;
        _name = name;
        Slots = new SemaphoreSlim(context.QueueCapacity);
        _loop = Task.Run(LoopAsync);
    }

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; }

    /// <summary>The queue's free slots: a call takes one before it queues, the loop gives one back after each
    /// flush.</summary>
    protected SemaphoreSlim Slots { get; }

    /// <inheritdoc />
    public abstract ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default);

    /// <summary>Copies <paramref name="command"/> into a pooled buffer and queues it for the loop; if the writer
    /// stopped taking calls meanwhile, releases the copy and throws why. The caller holds a slot.</summary>
    protected void Enqueue(OutgoingCommand command)
    {
        var staged = StagedCommand.Copy(command, Context.Pool);
        if (!_queue.Writer.TryWrite(staged))
        {
            staged.Release(Context.Pool);
            throw Stopped() ?? ZooHelpers.Disposed(_name);
        }
    }

    /// <summary>The exception a call gets because the writer stopped (a fault or disposal), or null while it
    /// runs.</summary>
    protected Exception? Stopped() =>
        ZooHelpers.Stopped(_name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));

    private async Task LoopAsync()
    {
        var reader = _queue.Reader;
        StagedCommand current = default;
        bool holding = false;
        try
        {
            while (await reader.WaitToReadAsync(_stop.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out current))
                {
                    holding = true;
                    CommandFraming.Write(Context.Output, current.Command, current.Body, Context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(
                        await Context.Output.FlushAsync(_stop.Token).ConfigureAwait(false)
                    );
                    holding = false;
                    current.Release(Context.Pool);
                    Slots.Release();
                }
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            if (holding)
                current.Release(Context.Pool);
            _queue.Writer.TryComplete();
            while (reader.TryRead(out var dropped))
                dropped.Release(Context.Pool);
            Slots.Release(Context.QueueCapacity); // wake callers waiting for a slot: they see the fault
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        Slots.Release(Context.QueueCapacity);
        if (await _loop.EndsWithinAsync(Context, gaveUp: false).ConfigureAwait(false))
            return;
        await _loop
            .GiveUpOnAsync(Context, _stop, reason => Interlocked.CompareExchange(ref _fault, reason, null))
            .ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }
}
