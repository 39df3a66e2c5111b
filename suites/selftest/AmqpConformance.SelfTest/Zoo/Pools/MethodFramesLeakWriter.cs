using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that, after the flush, releases only commands with content, reasoning that
/// <see cref="OutgoingCommand.Release"/> is about the body and its owner and a command without content (basic.ack, basic.cancel:
/// one method frame) has neither. It forgets the rented frames buffer every command carries, so each command without content
/// keeps its rental for ever: a client that acknowledges every delivery leaks one small rental per ack.
/// </summary>
public sealed class MethodFramesLeakWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "method-frames-leak";
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
                CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            // BUG: "nothing to release without a body": the rented frames of a command without content never go back.
            if (command.HasContent) command.Release(context.Pool);
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
