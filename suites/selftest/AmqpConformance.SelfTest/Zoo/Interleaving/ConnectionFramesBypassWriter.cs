using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that does not let the connection's own frames (channel 0 commands without
/// content: heartbeats, connection.close, close-ok) queue behind a publish whose flush is stalled, "or the broker drops
/// us for a missed heartbeat": while another call is inside its write or flush, such a command is written and flushed
/// at once, without the lock. Its bytes land between another command's frames when that command is still being written,
/// and its flush starts while the lock holder's flush is still pending, on a PipeWriter that allows one writer and one
/// flush at a time. When no call is in progress it takes the lock like any other.
/// </summary>
public sealed class ConnectionFramesBypassWriter(WriterContext context)
    : InlineZooWriter(context, "connection-frames-bypass")
{
    private int _busy;

    /// <inheritdoc />
    public override async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        // BUG: "urgent" connection frames skip the lock while a call holds it.
        if (command.Channel != 0 || command.HasContent || Volatile.Read(ref _busy) == 0)
        {
            await base.WriteAsync(command, cancellationToken).ConfigureAwait(false);
            return;
        }
        if (Stopped() is { } stopped)
        {
            command.Release(Context.Pool);
            throw stopped;
        }
        try
        {
            Context.Output.Write(command.Frames.Span);
            CommandFraming.ThrowIfNotDelivered(
                await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
        }
        catch (Exception ex)
        {
            throw ZooHelpers.Faulted("connection-frames-bypass", ex);
        }
        finally
        {
            command.Release(Context.Pool);
        }
    }

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        Volatile.Write(ref _busy, 1);
        try
        {
            await base.WriteAndFlushAsync(command).ConfigureAwait(false);
        }
        finally
        {
            Volatile.Write(ref _busy, 0);
        }
    }
}
