using System.Buffers;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that honours cancellation in the middle of a body frame: it writes each
/// body frame's header and the first half of its payload, flushes that, and then checks the token, throwing
/// <see cref="OperationCanceledException"/> with half a frame on the wire. A token that is never cancelled, or one
/// cancelled before the lock is taken, is handled correctly; a cancellation that lands while a body is being
/// written tears the stream.
/// </summary>
public sealed class TornCancellationWriter(WriterContext context) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            var output = context.Output;
            output.Write(command.Frames.Span);
            int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
            var body = command.Body;
            while (!body.IsEmpty)
            {
                var chunk = body[..Math.Min(max, body.Length)];
                int half = chunk.Length / 2;
                FrameFormat.WriteHeader(
                    output.GetSpan(AmqpConstants.FrameHeaderSize),
                    FrameType.Body,
                    command.Channel,
                    chunk.Length
                );
                output.Advance(AmqpConstants.FrameHeaderSize);
                output.Write(chunk.Span[..half]);
                await output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                // BUG: the token is honoured with half a frame already flushed.
                cancellationToken.ThrowIfCancellationRequested();
                output.Write(chunk.Span[half..]);
                output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
                output.Advance(1);
                body = body[chunk.Length..];
            }
            CommandFraming.ThrowIfNotDelivered(await output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
        }
        finally
        {
            command.Release(context.Pool);
            _lock.Release();
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _lock.WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
    }
}
