using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The one-buffer-per-command design several zoo writers share: a call refuses with a clear exception once the writer
/// has stopped, serializes its whole command (method, header and body frames) into one buffer before it takes the lock
/// (<see cref="StageImage"/>), so the lock is held only for one Write and one flush; it re-checks under the lock,
/// writes, flushes, releases its command and completes after the flush, then lets go of the buffer
/// (<see cref="ReleaseImage"/>). Cancellation is honoured only while waiting for the lock; a failed write or flush
/// stops the writer for later calls; disposal waits for the call in progress within the drain timeout, then gives up
/// (<see cref="ZooHelpers.DrainAsync"/>). A subclass decides where the buffer comes from and where it goes, and that is
/// its bug (or, for a correct writer, its unusual way).
/// </summary>
/// <param name="context">The writer's context.</param>
/// <param name="name">The writer's name in its exceptions.</param>
public abstract class WholeImageZooWriter(WriterContext context, string name) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; } = context;

    /// <summary>Serializes <paramref name="command"/> whole into a buffer and returns it, with how many bytes it wrote.
    /// Called before the lock is taken; what it throws fails the call as it is (nothing is released for it).</summary>
    protected abstract byte[] StageImage(OutgoingCommand command, out int written);

    /// <summary>Lets go of a buffer <see cref="StageImage"/> gave, once the call no longer reads it (written, or failed
    /// or cancelled before that). By default gives it back to the writer's pool.</summary>
    protected virtual void ReleaseImage(byte[] image) => Context.Pool.Return(image);

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(Context.Pool);
            throw early;
        }
        byte[] image = StageImage(command, out int written);
        try
        {
            await _lock.EnterOrReleaseAsync(command, Context.Pool, cancellationToken).ConfigureAwait(false);
            try
            {
                if (Stopped() is { } stopped)
                {
                    command.Release(Context.Pool);
                    throw stopped;
                }
                try
                {
                    Context.Output.Write(image.AsSpan(0, written));
                    CommandFraming.ThrowIfNotDelivered(
                        await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                    );
                }
                catch (Exception ex)
                {
                    Interlocked.CompareExchange(ref _fault, ex, null);
                    command.Release(Context.Pool);
                    throw ZooHelpers.Faulted(name, ex);
                }
                command.Release(Context.Pool);
            }
            finally
            {
                _lock.Release();
            }
        }
        finally
        {
            ReleaseImage(image);
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(Context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
