using System.Collections.Concurrent;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Cancellation;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy the body, enqueue, complete on enqueue) that keeps each call's token
/// with its queue entry and has its loop skip, release and forget an entry whose token has been cancelled by the time
/// the loop reaches it, "because its caller gave up on it". But the call already completed successfully on enqueue: a
/// caller that cancels its token afterwards (a request timeout that fires after the publish returned, a linked token of
/// an operation that ends) loses a publish it was told had been accepted, with no transport fault to excuse it. Tokens
/// that are never cancelled, or cancelled only after the loop wrote their command, change nothing.
/// </summary>
public sealed class LateCancelSkipsQueuedWriter(WriterContext context)
    : StagedZooWriter(context, "late-cancel-skips-queued"),
        IFrameWriter
{
    private readonly ConcurrentDictionary<byte[], CancellationToken> _tokens = new(ReferenceEqualityComparer.Instance);

    /// <inheritdoc />
    public new ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.CanBeCanceled)
            _tokens[command.RentedFrames] = cancellationToken;
        var call = base.WriteAsync(command, cancellationToken);
        if (!call.IsCompletedSuccessfully)
            return Forget(call, command.RentedFrames);
        return call;
    }

    private async ValueTask Forget(ValueTask call, byte[] frames)
    {
        try
        {
            await call.ConfigureAwait(false);
        }
        catch
        {
            _tokens.TryRemove(frames, out _);
            throw;
        }
    }

    /// <inheritdoc />
    private protected override async Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        while (await queue.WaitToReadAsync(stop).ConfigureAwait(false))
        {
            while (queue.TryRead(out var current))
            {
                bool hadToken = _tokens.TryRemove(current.Command.RentedFrames, out var token);
                // BUG: the call completed on enqueue; a token cancelled since then must not unsend it.
                if (hadToken && token.IsCancellationRequested)
                {
                    current.Release(Context.Pool);
                    continue;
                }
                inHand.Add(current);
                CommandFraming.Write(Context.Output, current.Command, current.Body, Context.FrameMax);
                CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(stop).ConfigureAwait(false));
                inHand.Clear();
                current.Release(Context.Pool);
            }
        }
    }
}
