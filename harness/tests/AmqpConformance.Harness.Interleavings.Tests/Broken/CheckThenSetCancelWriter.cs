using System.Collections.Concurrent;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Interleavings.Tests.Broken;

/// <summary>
/// DELIBERATELY BROKEN: a queue-and-loop writer whose calls complete after their flush and whose cancellation is meant
/// to be all or nothing: the loop claims a queued entry with a compare-exchange, but the cancellation callback only
/// checks that the entry is still queued and then marks it cancelled ("the loop unregisters the callback before it
/// writes"). A cancellation that checked just before the loop's claim releases the command and fails the call while the
/// loop writes the released frames and releases them again. A black-box run reaches that window only by chance (600
/// property cases missed it in a copy of the coalescing writer).
/// </summary>
public sealed class CheckThenSetCancelWriter : IFrameWriter
{
    private const int Queued = 0,
        Writing = 1,
        Cancelled = 2;
    private readonly WriterContext _context;

    // A queue and a semaphore rather than a Channel: Coyote controls SemaphoreSlim, and a loop parked in a Channel read
    // (which it does not control) outlives an iteration that found a bug, then fails inside Coyote's rewritten task
    // builder.
    private readonly ConcurrentQueue<Entry> _queue = new();
    private readonly SemaphoreSlim _queued = new(0);
    private readonly Task _loop;
    private int _disposed;

    /// <summary>Creates the writer and starts its loop.</summary>
    public CheckThenSetCancelWriter(WriterContext context)
    {
        _context = context;
        _loop = Task.Run(LoopAsync);
    }

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        var entry = new Entry(command, _context.Pool);
        if (cancellationToken.CanBeCanceled)
            entry.Registration = cancellationToken.UnsafeRegister(
                static (state, token) => ((Entry)state!).Cancel(token),
                entry
            );
        if (Volatile.Read(ref _disposed) != 0)
        {
            command.Release(_context.Pool);
            throw new ObjectDisposedException(nameof(CheckThenSetCancelWriter));
        }
        _queue.Enqueue(entry);
        _queued.Release();
        await entry.Done.Task.ConfigureAwait(false);
    }

    private async Task LoopAsync()
    {
        while (true)
        {
            await _queued.WaitAsync().ConfigureAwait(false);
            if (!_queue.TryDequeue(out var entry))
                return; // disposal's wake-up: everything queued before it was written
            if (Interlocked.CompareExchange(ref entry.State, Writing, Queued) != Queued)
                continue;
            entry.Registration.Unregister();
            CommandFraming.Write(_context.Output, entry.Command, entry.Command.Body.Span, _context.FrameMax);
            var flushed = await _context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            entry.Command.Release(_context.Pool);
            if (flushed.IsCompleted)
                entry.Done.TrySetException(new FrameWriterFaultedException("the reader completed", null));
            else
                entry.Done.TrySetResult();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _queued.Release();
        await _loop.ConfigureAwait(false);
    }

    private sealed class Entry(OutgoingCommand command, System.Buffers.ArrayPool<byte> pool)
    {
        public readonly OutgoingCommand Command = command;
        public readonly TaskCompletionSource Done = new(TaskCreationOptions.RunContinuationsAsynchronously);
        public CancellationTokenRegistration Registration;
        public int State;

        public void Cancel(CancellationToken token)
        {
            if (Volatile.Read(ref State) != Queued)
                return; // BUG: checked, then set: the loop may claim the entry in between
            Volatile.Write(ref State, Cancelled);
            Command.Release(pool);
            Done.TrySetCanceled(token);
        }
    }
}
