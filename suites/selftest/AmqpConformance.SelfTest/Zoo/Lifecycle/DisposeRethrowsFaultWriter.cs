using System.Runtime.ExceptionServices;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose DisposeAsync, after its orderly drain, rethrows the transport failure
/// that stopped it ("so that a failure no call was waiting for is not lost"), as a writer does whose disposal ends with
/// <c>await _writeLoop</c> on a loop task that faulted. A connection's close path (Abort, Dispose, <c>await using</c>)
/// then throws the socket's IOException after a network failure, and whatever the caller meant to clean up after it
/// never runs. Only the first DisposeAsync throws; a second one returns quietly. Without a fault disposal is clean.
/// </summary>
public sealed class DisposeRethrowsFaultWriter(WriterContext context)
    : InlineZooWriter(context, "dispose-rethrows-fault")
{
    private Exception? _transportFault;
    private int _disposeCalls;

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        try
        {
            await base.WriteAndFlushAsync(command).ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _transportFault, ex, null);
            throw;
        }
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        bool first = Interlocked.Increment(ref _disposeCalls) == 1;
        await base.DisposeAsync().ConfigureAwait(false);
        // BUG: disposal reports the connection's failure to whoever closes it.
        if (first && Volatile.Read(ref _transportFault) is { } fault)
            ExceptionDispatchInfo.Throw(fault);
    }
}
