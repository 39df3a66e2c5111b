using AmqpConformance.Harness.Writers;
using MyAmqpClient;

namespace MyAmqpClient.Tests;

/// <summary>The client's <see cref="CommandWriter"/> seen through the harness's <see cref="IFrameWriter"/>: the
/// command's frames and body go to the client's writer, and the command is released (pooled frames back, body owner
/// disposed) once the client's call has completed or failed, that is when the client no longer needs its
/// bytes.</summary>
public sealed class CommandWriterAdapter(WriterContext context) : IFrameWriter
{
    private readonly CommandWriter _writer = new(context.Output, context.FrameMax, context.DrainTimeout);

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        try
        {
            await _writer.WriteAsync(command.Frames, command.Channel, command.Body, cancellationToken);
        }
        finally
        {
            command.Release(context.Pool);
        }
    }

    public ValueTask DisposeAsync() => _writer.DisposeAsync();
}

/// <summary>Makes one <see cref="CommandWriterAdapter"/> per connection the suite opens.</summary>
public sealed class CommandWriterFactory : FrameWriterFactory
{
    public override string Name => "MyAmqpClient";

    public override IFrameWriter CreateWriter(WriterContext context) => new CommandWriterAdapter(context);

    /// <summary>The client's writer completes a call after the flush that delivered it, and fails it when that flush
    /// fails.</summary>
    public override WriterCompletion Completion => WriterCompletion.AfterFlush;
}
