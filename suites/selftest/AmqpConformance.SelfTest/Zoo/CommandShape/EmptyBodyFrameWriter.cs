using System.IO.Pipelines;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer whose body loop is a do/while, so a content command with an empty body still gets
/// one body frame, of size 0, after its header (whose body size is 0, so the broker sees a body frame nobody asked for).
/// Every non-empty body is framed correctly.
/// </summary>
public sealed class EmptyBodyFrameWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "empty-body-frame";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            try
            {
                WriteCommand(context.Output, command, context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(context.Pool);
        }
        finally
        {
            _lock.Release();
        }
    }

    private static void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        output.Write(command.Frames.Span);
        if (!command.HasContent) return;
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        // BUG: do/while runs once even for an empty body: one empty body frame.
        do
        {
            var chunk = body[..Math.Min(max, body.Length)];
            FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk);
            body = body[chunk.Length..];
        }
        while (!body.IsEmpty);
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
