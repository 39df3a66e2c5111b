using System.IO.Pipelines;
using System.Threading.Channels;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: a background writer (copy, complete on enqueue) whose loop, given a batch of queued commands,
/// shares the output fairly between channels: each turn, every channel sends one frame of its current command (the
/// first turn of a command sends its method, header and first body frame together), so a large body on one channel does
/// not hold up the others. Per channel the frames stay in order, which AMQP allows, but the writer's promise that each
/// command is contiguous on the wire breaks as soon as two queued commands on different channels include one whose body
/// spans several frames.
/// </summary>
public sealed class FrameRoundRobinWriter(WriterContext context) : StagedZooWriter(context, "frame-round-robin")
{
    private protected override async Task WriteLoopAsync(
        ChannelReader<StagedCommand> queue,
        List<StagedCommand> inHand,
        CancellationToken stop
    )
    {
        while (await queue.WaitToReadAsync(stop).ConfigureAwait(false))
        {
            while (inHand.Count < 32 && queue.TryRead(out var staged))
                inHand.Add(staged);
            WriteRoundRobin(Context.Output, inHand, Context.FrameMax);
            CommandFraming.ThrowIfNotDelivered(await Context.Output.FlushAsync(stop).ConfigureAwait(false));
            foreach (var staged in inHand)
                staged.Release(Context.Pool);
            inHand.Clear();
        }
    }

    private static void WriteRoundRobin(PipeWriter output, List<StagedCommand> batch, int frameMax)
    {
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var lanes = new List<Lane>();
        for (int i = 0; i < batch.Count; i++)
        {
            ushort channel = batch[i].Command.Channel;
            var lane = lanes.Find(l => l.Channel == channel);
            if (lane is null)
                lanes.Add(lane = new Lane(channel));
            lane.Pending.Enqueue(i);
        }
        bool any = true;
        while (any)
        {
            any = false;
            // BUG: one frame per channel per turn: frames of commands on different channels interleave on the wire.
            foreach (var lane in lanes)
            {
                if (lane.Current < 0)
                {
                    if (!lane.Pending.TryDequeue(out int next))
                        continue;
                    lane.Current = next;
                    lane.Offset = -1;
                }
                any = true;
                var staged = batch[lane.Current];
                var body = staged.Body;
                if (lane.Offset < 0)
                {
                    output.Write(staged.Command.Frames.Span);
                    lane.Offset = 0;
                }
                int n = Math.Min(max, body.Length - lane.Offset);
                if (n > 0)
                {
                    FrameFormat.WriteFrame(output, FrameType.Body, lane.Channel, body.Slice(lane.Offset, n));
                    lane.Offset += n;
                }
                if (lane.Offset >= body.Length)
                    lane.Current = -1;
            }
        }
    }

    private sealed class Lane(ushort channel)
    {
        public ushort Channel { get; } = channel;
        public Queue<int> Pending { get; } = new();
        public int Current { get; set; } = -1;
        public int Offset { get; set; }
    }
}
