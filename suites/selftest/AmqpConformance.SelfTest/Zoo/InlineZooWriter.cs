using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The inline design that many zoo writers share and get right: a call takes a lock (releasing its command if that wait is
/// cancelled), refuses with a clear exception once the writer has stopped, writes its command, flushes it, releases it; a failed
/// write or flush stops the writer for later calls; disposal waits for the call in progress within the drain timeout, then gives
/// up (<see cref="ZooHelpers.DrainAsync"/>). A subclass overrides one step, and what it overrides is its bug (or, for a correct
/// writer, its unusual way): how a command is encoded (<see cref="WriteCommand"/>), how it is written and flushed
/// (<see cref="WriteAndFlushAsync"/>), or what happens once it went out (<see cref="Delivered"/>); a writer that lets some calls
/// bypass the lock overrides <see cref="WriteAsync"/> to route them and hands the rest to this one.
/// </summary>
/// <param name="context">The writer's context.</param>
/// <param name="name">The writer's name in its exceptions.</param>
public abstract class InlineZooWriter(WriterContext context, string name) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <summary>The writer's context.</summary>
    protected WriterContext Context { get; } = context;

    /// <inheritdoc />
    public virtual async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(Context.Pool);
            throw early;
        }
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
                await WriteAndFlushAsync(command).ConfigureAwait(false);
            }
            catch (Exception ex) when (!StopsOn(ex))
            {
                command.Release(Context.Pool);
                throw;
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(Context.Pool);
                throw ZooHelpers.Faulted(name, ex);
            }
            Delivered(command);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <summary>Writes <paramref name="command"/> into the output and flushes it, throwing if the flush did not deliver
    /// (<see cref="CommandFraming.ThrowIfNotDelivered"/>). Called under the lock. By default: <see cref="WriteCommand"/>, then one
    /// flush.</summary>
    protected virtual async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        WriteCommand(Context.Output, command, Context.FrameMax);
        CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
    }

    /// <summary>Encodes <paramref name="command"/> whole into <paramref name="output"/>: its frames, then its body as frames of
    /// frame_max - 8 bytes. By default <see cref="CommandFraming.Write"/>.</summary>
    protected virtual void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax) =>
        CommandFraming.Write(output, command, command.Body.Span, frameMax);

    /// <summary>Whether <paramref name="failure"/>, thrown while writing or flushing, stops the writer (the call fails with
    /// <see cref="FrameWriterFaultedException"/>, and so do later ones); otherwise only the call fails, with it. By default every
    /// failure stops the writer: the output is the connection's, and whatever it threw, it is broken.</summary>
    protected virtual bool StopsOn(Exception failure) => true;

    /// <summary>Called once <paramref name="command"/> was written and flushed, still under the lock. By default releases it.</summary>
    protected virtual void Delivered(in OutgoingCommand command) => command.Release(Context.Pool);

    /// <summary>Stops the writer: waits for the call in progress within the drain timeout, then gives up on it.</summary>
    public virtual async ValueTask DisposeAsync()
    {
        if (!MarkDisposed()) return;
        await _lock.DrainAsync(Context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }

    /// <summary>Marks the writer disposed, so later calls fail; false if it already was.</summary>
    protected bool MarkDisposed() => Interlocked.Exchange(ref _disposed, 1) == 0;

    /// <summary>The exception a call gets because the writer stopped (a fault or disposal), or null while it runs.</summary>
    protected Exception? Stopped() => ZooHelpers.Stopped(name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
