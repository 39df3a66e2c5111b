using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Visibility;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that finds a flush per acknowledgement wasteful. A command without content (basic.ack,
/// basic.cancel, channel.close: one small method frame) is written into the output and its call completes at once, "the next
/// publish's flush carries it out"; publishes are flushed as usual. While publishes keep coming nobody notices; a method command
/// that is the last before a pause (an ack after the last delivery, a close) sits in the output's buffer, and the broker never
/// sees it.
/// </summary>
public sealed class MethodLeftUnflushedWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "method-left-unflushed";
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
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                // BUG: a command without content is left for the next publish's flush.
                if (command.HasContent)
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

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
