using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: A one-buffer-per-command writer that keeps its staging buffer for the connection's life instead
/// of renting one per command (it serializes each command whole into it under the lock, writes it with one Write,
/// flushes). So that one huge publish does not pin a huge array for ever, it "trims" every 256th command: returns the
/// staging buffer to the pool and lets the next command rent one of the size it needs. The trim was put right after
/// serializing, where the size is known, but the command is still written from the local reference to the buffer it
/// just returned: the pool has it (and may have handed it to someone else), and what goes on the wire is whatever is in
/// it by then. Correct for the first 255 commands of every connection.
/// </summary>
public sealed class StagingTrimEvery256Writer(WriterContext context) : IFrameWriter
{
    private const string Name = "staging-trim-every-256";
    private const int TrimEvery = 256;
    private readonly SemaphoreSlim _lock = new(1, 1);
    private byte[]? _staging;
    private long _commands;
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
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
                int length = checked((int)command.WireLength(context.FrameMax));
                byte[] image = StagingOfAtLeast(length);
                int written = ZooHelpers.WriteWholeCommand(image, command, context.FrameMax);
                if (++_commands % TrimEvery == 0)
                    TrimStaging(); // BUG: image is still used below
                context.Output.Write(image.AsSpan(0, written));
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
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

    private byte[] StagingOfAtLeast(int length)
    {
        if (_staging is { } staging && staging.Length >= length)
            return staging;
        if (_staging is not null)
            context.Pool.Return(_staging);
        _staging = null;
        _staging = context.Pool.Rent(length);
        return _staging;
    }

    private void TrimStaging()
    {
        if (_staging is null)
            return;
        context.Pool.Return(_staging);
        _staging = null;
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
        if (Interlocked.Exchange(ref _staging, null) is { } staging)
            context.Pool.Return(staging);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
