using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that holds its connection lock only while it copies a command into the pipe
/// and flushes after letting go ("never hold the lock across socket I/O, so other channels can keep writing"). A
/// <see cref="System.IO.Pipelines.PipeWriter"/> is not thread-safe: with several channels publishing at once, one
/// caller's FlushAsync runs while another caller is between GetMemory and Advance, or two flushes are pending at once;
/// and disposal, which waits only for the lock, can return with a flush still pending. A single publisher, or calls
/// that never overlap, are fine.
/// </summary>
public sealed class FlushOutsideLockWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "flush-outside-lock";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, context.Pool, cancellationToken) is { } refused)
        {
            await refused.ConfigureAwait(false);
            return;
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
        }
        finally
        {
            _lock.Release();
        }
        try
        {
            // BUG: the flush runs outside the lock, concurrently with other callers' writes and flushes.
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

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
