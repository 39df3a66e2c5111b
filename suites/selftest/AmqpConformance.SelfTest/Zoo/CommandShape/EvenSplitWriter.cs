using System.IO.Pipelines;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.CommandShape;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that spreads a body evenly over the number of frames it needs ("no runt last
/// frame"), so every frame is within frame_max but, for a multi-frame body that is not an exact multiple of frame_max - 8,
/// no frame is full, while AMQP requires every body frame but the last to carry exactly frame_max - 8 bytes. Single-frame
/// bodies and exact multiples are correct.
/// </summary>
public sealed class EvenSplitWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "even-split";
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
        int length = command.Body.Length;
        int frames = FrameFormat.BodyFrameCount(length, frameMax);
        // BUG: equal slices (rounded up) instead of full frame_max - 8 slices and a shorter last one.
        int slice = frames == 0 ? 0 : (int)(((long)length + frames - 1) / frames);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(slice, body.Length)];
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
