using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose DisposeAsync only marks the writer disposed and returns at once ("the
/// call in progress will see the flag and stop"). Later calls fail as they should, and with a healthy output the call
/// in progress ends within microseconds, so nothing shows. When the output is stalled, that call's flush is still
/// pending as disposal returns and nothing cancels it: once the output drains, its bytes go out after disposal
/// returned, and the call reports success.
/// </summary>
public sealed class DisposeLeavesCallInFlightWriter(WriterContext context)
    : InlineZooWriter(context, "dispose-leaves-call-in-flight")
{
    public override ValueTask DisposeAsync()
    {
        // BUG: neither waits for the call in progress nor cancels its pending flush.
        MarkDisposed();
        return ValueTask.CompletedTask;
    }
}
