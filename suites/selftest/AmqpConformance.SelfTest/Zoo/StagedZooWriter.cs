using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The background design many zoo writers share and get right (the reference background writer's, complete on enqueue):
/// a call refuses with a clear exception once the writer has stopped, and at once if its token is already cancelled
/// (releasing its command either way); otherwise it stages its command (<see cref="Stage"/>: the body copied into a
/// pooled buffer) into a channel bounded at <see cref="WriterContext.QueueCapacity"/> that waits when full, and
/// completes as soon as the command is queued. A call that finds the queue full waits for room
/// (<see cref="EnqueueWhenRoomAsync"/>); if that wait is cancelled, or the writer stops meanwhile, it releases its
/// staged command and throws. One loop takes the queued commands one at a time, writes each, flushes it and releases it
/// (<see cref="WriteLoopAsync"/>). A failed write or flush stops the writer (<see cref="LoopStopped"/>): the commands
/// in hand and everything queued are released unwritten and later calls are refused. Disposal closes the queue and lets
/// the loop drain within the drain timeout (<see cref="WaitForDrainAsync"/>); if it does not, records the reason,
/// cancels the loop and its pending flush, and waits for the loop once more within the drain timeout. A subclass
/// overrides one step, and what it overrides is its bug: the queue it passes to the constructor, how a command is
/// staged (<see cref="Stage"/>), how a call waits for room (<see cref="EnqueueWhenRoomAsync"/>), how the loop writes
/// and flushes (<see cref="WriteLoopAsync"/>), what it does when it stops (<see cref="LoopStopped"/>) or how disposal
/// waits for the drain (<see cref="WaitForDrainAsync"/>).
/// </summary>
public abstract class StagedZooWriter : IFrameWriter
{
    private readonly Channel<StagedCommand> _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private Exception? _fault;
    private int _disposed;

    /// <summary>Starts the writer's loop.</summary>
    /// <param name="context">The writer's context.</param>
    /// <param name="name">The writer's name in its exceptions.</param>
    /// <param name="queue">The queue; by default (null) bounded at <see cref="WriterContext.QueueCapacity"/>, waiting
    /// when full, with one reader, many writers and no synchronous continuations.</param>
    private protected StagedZooWriter(WriterContext context, string name, Channel<StagedCommand>? queue = null)
    {
        ArgumentNullException.ThrowIfNull(context);
        Context = context;
        Name = name;
        _queue = queue
            ?? Channel.CreateBounded<StagedCommand>(
                new BoundedChannelOptions(context.QueueCapacity)
                {
                    FullMode = BoundedChannelFullMode.Wait,
                    SingleReader = true,
                    SingleWriter = false,
                    AllowSynchronousContinuations = false,
                }
            );
        _loop = Task.Run(LoopAsync);
    }

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; }

    /// <summary>The writer's name in its exceptions.</summary>
    protected string Name { get; }

    /// <summary>How many commands are queued (not yet taken by the loop).</summary>
    protected int QueuedCount => _queue.Reader.Count;

    /// <summary>Whether disposal has given up draining and cancelled the loop.</summary>
    protected bool StopRequested => _stop.IsCancellationRequested;

    /// <summary>The loop; it never faults (it handles its own failure in <see cref="LoopStopped"/>).</summary>
    protected Task Loop => _loop;

    /// <inheritdoc />
    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (
            ZooHelpers.RefuseOnEntry(
                ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed)),
                command,
                Context.Pool,
                cancellationToken
            ) is
            { } refused
        )
            return refused;
        var staged = Stage(command);
        if (_queue.Writer.TryWrite(staged))
            return default;
        return WaitForSpaceAsync(staged, cancellationToken);
    }

    /// <summary>Makes the queue entry for <paramref name="command"/>; what the loop writes from it must stay as it was
    /// at the call, since the call completes on enqueue. By default <see cref="StagedCommand.Copy"/>: the body copied
    /// into a buffer from the pool unless an owner came with it.</summary>
    private protected virtual StagedCommand Stage(OutgoingCommand command) => StagedCommand.Copy(command, Context.Pool);

    private async ValueTask WaitForSpaceAsync(StagedCommand staged, CancellationToken cancellationToken)
    {
        try
        {
            await EnqueueWhenRoomAsync(_queue.Writer, staged, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            staged.Release(Context.Pool);
            throw;
        }
        catch (ChannelClosedException)
        {
            staged.Release(Context.Pool);
            throw ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), 1)!;
        }
    }

    /// <summary>Puts <paramref name="staged"/> into the full <paramref name="queue"/> once there is room; throws
    /// <see cref="OperationCanceledException"/> if <paramref name="cancellationToken"/> fires first (the command then
    /// must not be queued: the caller releases it), <see cref="ChannelClosedException"/> if the writer stops. By
    /// default <see cref="ChannelWriter{T}.WaitToWriteAsync"/> with the caller's token, then
    /// <see cref="ChannelWriter{T}.TryWrite"/>, as the reference background writer does: on .NET 10 a cancelled
    /// <see cref="ChannelWriter{T}.WriteAsync"/> can both throw and hand the item to the reader
    /// (dotnet/runtime#132230), and a correct writer is then blamed for a ghost and a double return.</summary>
    private protected virtual async ValueTask EnqueueWhenRoomAsync(
        ChannelWriter<StagedCommand> queue,
        StagedCommand staged,
        CancellationToken cancellationToken
    )
    {
        while (await queue.WaitToWriteAsync(cancellationToken).ConfigureAwait(false))
            if (queue.TryWrite(staged))
                return;
        throw new ChannelClosedException();
    }

    private async Task LoopAsync()
    {
        var inHand = new List<StagedCommand>();
        try
        {
            await WriteLoopAsync(_queue.Reader, inHand, _stop.Token).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            LoopStopped(ex, inHand);
        }
    }

    /// <summary>The loop: waits for queued commands (with <paramref name="stop"/>), writes them into the output,
    /// flushes them (with <paramref name="stop"/>, throwing if the flush did not deliver) and releases each once it
    /// went out; returns once the queue is closed and empty. What it has taken off <paramref name="queue"/> and not yet
    /// released it keeps in <paramref name="inHand"/>, so that if it throws, <see cref="LoopStopped"/> releases them.
    /// By default one command at a time, one flush each.</summary>
    private protected virtual async Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        while (await queue.WaitToReadAsync(stop).ConfigureAwait(false))
        {
            while (queue.TryRead(out var current))
            {
                inHand.Add(current);
                BeforeWrite(current);
                CommandFraming.Write(Context.Output, current.Command, current.Body, Context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(stop).ConfigureAwait(false));
                inHand.Clear();
                current.Release(Context.Pool);
            }
        }
    }

    /// <summary>Called by the default loop (<see cref="WriteLoopAsync"/>) with each command it took, before it writes
    /// it (the command is in hand: if this throws, <see cref="LoopStopped"/> releases it). By default nothing.</summary>
    private protected virtual void BeforeWrite(StagedCommand current) { }

    /// <summary>Called on the loop when <see cref="WriteLoopAsync"/> threw: a write or flush failed, or disposal
    /// cancelled the loop (<see cref="StopRequested"/>); <paramref name="inHand"/> holds what it had taken and not yet
    /// released. By default: records <paramref name="reason"/> as the writer's fault (<see cref="RecordFault"/>),
    /// releases what is in hand, closes the queue (callers waiting for room see the fault) and releases everything
    /// still queued.</summary>
    private protected virtual void LoopStopped(Exception reason, List<StagedCommand> inHand)
    {
        RecordFault(reason);
        foreach (var held in inHand)
            held.Release(Context.Pool);
        inHand.Clear();
        _queue.Writer.TryComplete();
        while (_queue.Reader.TryRead(out var dropped))
            dropped.Release(Context.Pool);
    }

    /// <summary>Makes <paramref name="reason"/> the reason later calls are refused, unless the writer already has
    /// one.</summary>
    protected void RecordFault(Exception reason) => Interlocked.CompareExchange(ref _fault, reason, null);

    /// <summary>Closes the queue and lets the loop drain (<see cref="WaitForDrainAsync"/>); if it does not, records the
    /// reason, cancels the loop and its pending flush, and waits for the loop once more within the drain
    /// timeout.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queue.Writer.TryComplete();
        if (!await WaitForDrainAsync().ConfigureAwait(false))
        {
            await _loop.GiveUpOnAsync(Context, _stop, RecordFault).ConfigureAwait(false);
        }
        GC.SuppressFinalize(this);
    }

    /// <summary>Called by <see cref="DisposeAsync"/> once the queue is closed: waits until the loop has written
    /// everything queued (or stopped); true if it did, false to give up. By default the loop's end within
    /// <see cref="WriterContext.DrainTimeout"/> (<see cref="ZooHelpers.EndsWithinAsync"/>).</summary>
    protected virtual Task<bool> WaitForDrainAsync() => _loop.EndsWithinAsync(Context, gaveUp: false);
}
