using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that checks a flush result for
/// <see cref="System.IO.Pipelines.FlushResult.IsCanceled"/> but not for
/// <see cref="System.IO.Pipelines.FlushResult.IsCompleted"/>. A transport that fails with an exception is handled
/// correctly; when the output's reader completes without an error (the peer closed in an orderly way), every call keeps
/// reporting success and writing bytes that nobody will read.
/// </summary>
public sealed class IgnoresCompletedFlushWriter(WriterContext context)
    : InlineZooWriter(context, "ignores-completed-flush")
{
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        CommandFraming.Write(Context.Output, command, command.Body.Span, Context.FrameMax);
        var result = await Context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        // BUG: IsCompleted (the reader is gone) is not checked, only IsCanceled.
        if (result.IsCanceled)
            throw new OperationCanceledException("The flush was cancelled.");
    }
}
