using System.IO.Pipelines;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that computes the largest body slice per frame as frame_max - 7, counting the
/// 7-byte frame header but forgetting the frame-end octet. Bodies shorter than frame_max - 7 (one frame, under the limit) are
/// correct; a body of frame_max - 7 bytes or more under a finite frame_max produces body frames of frame_max + 1 bytes, which
/// the broker rejects as FRAME_ERROR.
/// </summary>
public sealed class FrameMaxMinusSevenWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "frame-max-minus-seven";
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
        // BUG: frame_max - 7: the header is counted, the frame-end octet is not.
        int max = frameMax == 0 ? int.MaxValue : frameMax - AmqpConstants.FrameHeaderSize;
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk);
            body = body[chunk.Length..];
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
