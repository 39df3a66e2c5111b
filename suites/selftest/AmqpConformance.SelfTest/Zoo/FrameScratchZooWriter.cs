using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>
/// The per-connection frame scratch design three zoo writers share: an inline writer (<see cref="InlineZooWriter"/>)
/// that assembles each body frame (header, payload, frame end) in one scratch buffer per connection, rented from the
/// context pool on first use (<see cref="ScratchLength"/> bytes) and returned by the first DisposeAsync; at frame_max 0
/// it writes body frames straight into the output. How long the scratch is decides whether the writer is right; a
/// writer that frames by something else than frame_max overrides <see cref="WriteCommand"/> and uses
/// <see cref="RentedScratch"/> and <see cref="WriteThroughScratch"/>.
/// </summary>
/// <param name="context">The writer's context.</param>
/// <param name="name">The writer's name in its exceptions.</param>
public abstract class FrameScratchZooWriter(WriterContext context, string name) : InlineZooWriter(context, name)
{
    private byte[]? _scratch;
    private int _disposing;

    /// <summary>How many bytes of scratch the writer rents for <paramref name="frameMax"/> (never 0).</summary>
    protected abstract int ScratchLength(int frameMax);

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (frameMax == 0)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        int size = ScratchLength(frameMax);
        WriteThroughScratch(
            output,
            command,
            RentedScratch(size).AsSpan(0, size),
            AmqpConstants.MaxBodyFramePayload(frameMax)
        );
    }

    /// <summary>The connection's scratch, rented (<paramref name="length"/> bytes asked for) on first use; as long as
    /// the pool made it.</summary>
    protected byte[] RentedScratch(int length) => _scratch ??= Context.Pool.Rent(length);

    /// <summary>Writes <paramref name="command"/>'s frames, then its body as frames of at most
    /// <paramref name="maxPayload"/> bytes, each assembled in <paramref name="scratch"/> before it goes into the
    /// output.</summary>
    protected static void WriteThroughScratch(
        PipeWriter output,
        in OutgoingCommand command,
        Span<byte> scratch,
        int maxPayload
    )
    {
        output.Write(command.Frames.Span);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(maxPayload, body.Length)];
            FrameFormat.WriteHeader(scratch, FrameType.Body, command.Channel, chunk.Length);
            chunk.CopyTo(scratch[AmqpConstants.FrameHeaderSize..]);
            scratch[AmqpConstants.FrameHeaderSize + chunk.Length] = AmqpConstants.FrameEnd;
            output.Write(scratch[..(chunk.Length + AmqpConstants.FrameOverhead)]);
            body = body[chunk.Length..];
        }
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        bool first = Interlocked.Exchange(ref _disposing, 1) == 0;
        await base.DisposeAsync().ConfigureAwait(false);
        if (first && Interlocked.Exchange(ref _scratch, null) is { } scratch)
            Context.Pool.Return(scratch);
    }
}
