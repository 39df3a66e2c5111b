using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that assembles each body frame in one frame_max-sized scratch buffer per
/// connection, returned by disposal, and rents it lazily on the first body; to keep the rental (which may allocate) out
/// of the lock, the call rents it before waiting for the lock, with <c>_scratch ??= Pool.Rent(frameMax)</c>. That is a
/// check-then-act, not an atomic one: two publishers whose first bodies arrive together both see no scratch, both rent,
/// and the second assignment drops the first rental, which never goes back to the pool. One body at a time (or bodies
/// after the first one went through) are right.
/// </summary>
public sealed class LazyScratchRaceWriter(WriterContext context) : InlineZooWriter(context, "lazy-scratch-race")
{
    private byte[]? _scratch;
    private int _disposing;

    /// <inheritdoc />
    public override ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        // BUG: not atomic; two first bodies at once rent twice and one rental is lost.
        if (!command.Body.IsEmpty && Context.FrameMax != 0 && Stopped() is null)
            _scratch ??= Context.Pool.Rent(Context.FrameMax);
        return base.WriteAsync(command, cancellationToken);
    }

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        if (frameMax == 0 || command.Body.IsEmpty)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        Span<byte> scratch = (_scratch ??= Context.Pool.Rent(frameMax)).AsSpan(0, frameMax);
        output.Write(command.Frames.Span);
        int maxPayload = Protocol.AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(maxPayload, body.Length)];
            Protocol.FrameFormat.WriteHeader(scratch, Protocol.FrameType.Body, command.Channel, chunk.Length);
            chunk.CopyTo(scratch[Protocol.AmqpConstants.FrameHeaderSize..]);
            scratch[Protocol.AmqpConstants.FrameHeaderSize + chunk.Length] = Protocol.AmqpConstants.FrameEnd;
            output.Write(scratch[..(chunk.Length + Protocol.AmqpConstants.FrameOverhead)]);
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
