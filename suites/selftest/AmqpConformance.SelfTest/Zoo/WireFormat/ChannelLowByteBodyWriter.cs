using System.IO.Pipelines;
using System.Buffers.Binary;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with its own body-frame encoder, whose channel field was copied from a heartbeat
/// encoder (channel 0, so "the high byte is always zero"): it writes only the low byte of the channel number. Every frame on
/// channels 1 to 255 is correct; a body frame on channel 256 or above goes out on the channel number modulo 256, so the broker
/// sees a body on another channel (closed, or in the middle of another command).
/// </summary>
public sealed class ChannelLowByteBodyWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "channel-low-byte-body";
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
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            Span<byte> header = output.GetSpan(AmqpConstants.FrameHeaderSize);
            header[0] = (byte)FrameType.Body;
            // BUG: only the channel's low byte; the high byte is left zero.
            header[1] = 0;
            header[2] = (byte)command.Channel;
            BinaryPrimitives.WriteUInt32BigEndian(header[3..], (uint)chunk.Length);
            output.Advance(AmqpConstants.FrameHeaderSize);
            output.Write(chunk);
            output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
            output.Advance(1);
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
