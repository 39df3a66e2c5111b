using System.IO.Pipelines;
using System.Buffers.Binary;
using AmqpConformance.Protocol;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.WireFormat;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with its own body-frame encoder, which writes the payload size into the low two
/// bytes of the four-byte size field (the high two left zero), as its 16-bit channel field beside it. Every frame up to 65,535
/// payload bytes is correct; a body frame over 64 KiB, possible only when frame_max is 0 (unlimited) or above 65,543, claims
/// its size modulo 65,536, and the broker reads the rest of the payload as the next frames.
/// </summary>
public sealed class SixteenBitSizeWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "sixteen-bit-size";
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
            BinaryPrimitives.WriteUInt16BigEndian(header[1..], command.Channel);
            header[3] = 0;
            header[4] = 0;
            // BUG: the size is written as a 16-bit value into the low half of its 32-bit field.
            BinaryPrimitives.WriteUInt16BigEndian(header[5..], (ushort)chunk.Length);
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
