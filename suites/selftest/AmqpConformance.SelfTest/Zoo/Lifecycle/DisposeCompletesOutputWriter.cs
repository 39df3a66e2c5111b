using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Lifecycle;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose disposal, after draining correctly, completes the output ("we are done
/// with the socket, tidy up"). The output is the connection's: its connection.close and close-ok go out after the
/// writer is disposed, and on a completed output they fail, so the broker sees the socket end without a close. Every
/// call and byte is right; only the lifecycle invariant's <c>output-completed-by-writer</c> rule catches it.
/// </summary>
public sealed class DisposeCompletesOutputWriter(WriterContext context)
    : InlineZooWriter(context, "dispose-completes-output")
{
    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        await base.DisposeAsync().ConfigureAwait(false);
        await Context.Output.CompleteAsync().ConfigureAwait(false);
    }
}
