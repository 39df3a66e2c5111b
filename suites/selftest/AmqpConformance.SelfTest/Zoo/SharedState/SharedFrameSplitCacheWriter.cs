using System.Collections.Concurrent;
using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.SharedState;

/// <summary>
/// DELIBERATELY BROKEN: (state shared between instances) an inline writer that remembers, per body length, how many
/// bytes each body frame carries, in a cache shared by every instance in the process ("a body of this length always
/// splits the same way") and cleared when the last writer is disposed. The split depends on the connection's
/// frame_max: with two connections at once whose frame_max differ, one connection frames a body the way the other
/// computed it, in frames too large for its frame_max or smaller than they must be. One connection at a time, every
/// body is framed right.
/// </summary>
public sealed class SharedFrameSplitCacheWriter : InlineZooWriter
{
    private static readonly ConcurrentDictionary<int, int> s_payloadByBodyLength = new();
    private static int s_users;
    private int _disposed;

    /// <summary>Counts itself in as a user of the cache.</summary>
    public SharedFrameSplitCacheWriter(WriterContext context)
        : base(context, "shared-frame-split-cache") => Interlocked.Increment(ref s_users);

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        var body = command.Body.Span;
        if (frameMax == 0 || body.IsEmpty)
        {
            base.WriteCommand(output, command, frameMax);
            return;
        }
        // BUG: keyed by the body's length alone; the frame_max it was computed for is this connection's.
        int payload = s_payloadByBodyLength.GetOrAdd(body.Length, _ => AmqpConstants.MaxBodyFramePayload(frameMax));
        output.Write(command.Frames.Span);
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(payload, body.Length)];
            var frame = output.GetSpan(chunk.Length + AmqpConstants.FrameOverhead);
            FrameFormat.WriteHeader(frame, FrameType.Body, command.Channel, chunk.Length);
            chunk.CopyTo(frame[AmqpConstants.FrameHeaderSize..]);
            frame[AmqpConstants.FrameHeaderSize + chunk.Length] = AmqpConstants.FrameEnd;
            output.Advance(chunk.Length + AmqpConstants.FrameOverhead);
            body = body[chunk.Length..];
        }
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        await base.DisposeAsync().ConfigureAwait(false);
        if (Interlocked.Exchange(ref _disposed, 1) == 0 && Interlocked.Decrement(ref s_users) == 0)
            s_payloadByBodyLength.Clear();
    }
}
