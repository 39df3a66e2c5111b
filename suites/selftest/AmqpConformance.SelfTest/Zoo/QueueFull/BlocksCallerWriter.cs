using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.QueueFull;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that takes its turn with a blocking wait ("the lock is almost never contended,
/// and WaitAsync allocates"): <c>SemaphoreSlim.Wait(token)</c> inside WriteAsync. While another call's flush is
/// stalled, every later caller's thread is held inside WriteAsync; on the thread pool that starves it, and a caller
/// that would have released the output deadlocks. Cancellation still works through the token. The faults invariant's
/// <c>blocked-caller</c> rule names it within one call timeout; as a hung call it would show only after minutes of
/// starved cases.
/// </summary>
public sealed class BlocksCallerWriter(WriterContext context) : InlineZooWriter(context, "blocks-caller")
{
    private readonly SemaphoreSlim _turn = new(1, 1);

    /// <inheritdoc />
    public override async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        try
        {
            _turn.Wait(cancellationToken);
        }
        catch (OperationCanceledException)
        {
            command.Release(Context.Pool);
            throw;
        }
        try
        {
            await base.WriteAsync(command, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _turn.Release();
        }
    }
}
