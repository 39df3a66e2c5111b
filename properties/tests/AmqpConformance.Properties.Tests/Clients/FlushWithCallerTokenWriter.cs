using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Tests.Clients;

/// <summary>A defective inline writer, shaped as RabbitMQ.Client PR #1912's <c>InlineSocketFrameHandler</c>: under a
/// lock it writes the command into the output and awaits <c>FlushAsync</c> with the caller's token. Over a socket
/// (<c>PipeWriter.Create(stream)</c>), a cancellation while the socket write is blocked part-way leaves the segment it
/// was writing in the pipe, and the next flush sends all of it again: a torn frame.</summary>
internal sealed class FlushWithCallerTokenWriter(WriterContext context) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        try
        {
            await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
            try
            {
                CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(cancellationToken).ConfigureAwait(false)
                );
            }
            finally
            {
                _lock.Release();
            }
        }
        finally
        {
            command.Release(context.Pool);
        }
    }

    public ValueTask DisposeAsync() => default;
}
