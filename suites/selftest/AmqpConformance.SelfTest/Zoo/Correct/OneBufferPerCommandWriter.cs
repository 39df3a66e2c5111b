using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): serializes each command whole (frames and body frames) into one buffer rented from the pool before
/// taking its lock, then writes it with a single Write and a single flush under the lock; completes after the flush. The
/// body is read only during the call; cancellation is honoured only while waiting for the lock; a fault stops the writer for
/// good. Memory: one command-sized buffer per caller in flight.
/// </summary>
public sealed class OneBufferPerCommandWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "one-buffer-per-command";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        int length = checked((int)command.WireLength(context.FrameMax));
        byte[] image = context.Pool.Rent(length);
        try
        {
            int written = ZooHelpers.WriteWholeCommand(image, command, context.FrameMax);
            await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
            try
            {
                if (Stopped() is { } stopped)
                {
                    command.Release(context.Pool);
                    throw stopped;
                }
                try
                {
                    context.Output.Write(image.AsSpan(0, written));
                    CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
                }
                catch (Exception ex)
                {
                    Interlocked.CompareExchange(ref _fault, ex, null);
                    command.Release(context.Pool);
                    throw ZooHelpers.Faulted(Name, ex);
                }
                command.Release(context.Pool);
            }
            finally
            {
                _lock.Release();
            }
        }
        finally
        {
            context.Pool.Return(image);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
