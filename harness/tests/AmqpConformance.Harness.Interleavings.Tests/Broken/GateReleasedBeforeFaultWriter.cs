using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Interleavings.Tests.Broken;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (a gate around write-and-flush) that records its output's failure only after
/// it let go of the gate. A call waiting for the gate takes it in between, finds no fault recorded, and writes to the
/// failed output. A loop whose <c>finally</c> releases the gate before the outer <c>catch</c> records the fault has
/// this order; black-box property cases reach the window only by chance (0 in 12,000 cases of a dedicated run, see
/// docs/decisions.md, "Coyote for this project's own writers").
/// </summary>
public sealed class GateReleasedBeforeFaultWriter(WriterContext context) : IFrameWriter
{
    private readonly SemaphoreSlim _gate = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        try
        {
            await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                if (Volatile.Read(ref _disposed) != 0)
                    throw new ObjectDisposedException(nameof(GateReleasedBeforeFaultWriter));
                if (Volatile.Read(ref _fault) is { } fault)
                    throw new FrameWriterFaultedException("the output failed earlier", fault);
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                var flushed = await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                CommandFraming.ThrowIfNotDelivered(flushed);
            }
            finally
            {
                _gate.Release(); // BUG: the gate goes before the fault is recorded below
            }
        }
        catch (Exception ex)
            when (ex is not (FrameWriterFaultedException or ObjectDisposedException or OperationCanceledException))
        {
            Interlocked.CompareExchange(ref _fault, ex, null);
            throw new FrameWriterFaultedException("the output failed", ex);
        }
        finally
        {
            command.Release(context.Pool);
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _gate.WaitAsync().ConfigureAwait(false);
        _gate.Release();
    }
}
