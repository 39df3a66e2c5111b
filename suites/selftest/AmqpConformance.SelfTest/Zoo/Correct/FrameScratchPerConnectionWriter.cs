using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// Correct but unusual: an inline writer that assembles each body frame (header, payload, frame end) in one frame_max-sized
/// scratch buffer per connection, rented from the context pool on first use and returned by the first DisposeAsync; at frame_max
/// 0 it writes body frames straight into the output. It holds one frame's worth of memory for the connection's lifetime, whether
/// or not the output is stalled: bounded, and so within the backpressure invariant (which once counted it as unbounded buffering
/// when the case's commands were small).
/// </summary>
public sealed class FrameScratchPerConnectionWriter(WriterContext context) : InlineZooWriter(context, "frame-scratch-per-connection")
{
    private byte[]? _scratch;
    private int _disposing;

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (frameMax == 0)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        output.Write(command.Frames.Span);
        _scratch ??= Context.Pool.Rent(frameMax);
        var scratch = _scratch.AsSpan(0, frameMax);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
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
        if (first && Interlocked.Exchange(ref _scratch, null) is { } scratch) Context.Pool.Return(scratch);
    }
}
