namespace AmqpConformance.Harness.Verdicts;

/// <summary>No interleaving, at two levels: writer level (each command's frames are contiguous on the wire, no other
/// frame between them, whatever its channel) and protocol level (per channel, no method starts while content is
/// unfinished). A heartbeat frame (a heartbeat call's command) inside another command is
/// <c>heartbeat-inside-command</c>; any other frame there, <c>frames-not-contiguous</c>.</summary>
public sealed class NoInterleavingChecker() : InvariantChecker(InvariantNames.NoInterleaving)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        if (evidence.ConcurrentOutputUse is { } overlap)
            v.Add(
                "concurrent-output-use",
                $"The writer used its output from two threads at once: {overlap}. A PipeWriter is not "
                    + "thread-safe: one caller's flush during another's write, or two flushes in flight, mixes frames of different commands "
                    + "on the wire or breaks the pipe itself. Every write and flush must come from one caller at a time (under the writer's "
                    + "lock, or from its one loop)."
            );
        var owner = new Dictionary<long, AssembledCommand>();
        foreach (var cmd in wire.Commands)
        foreach (long s in cmd.FrameSequences)
            owner[s] = cmd;

        foreach (var a in wire.Anomalies.Where(a => a.Rule == "method-during-content"))
        {
            var intruder = owner.GetValueOrDefault(a.Sequence);
            var calls = new[] { a.InterruptedCall, intruder?.CallId }.OfType<int>().ToArray();
            v.Add(
                "channel-content-interleaved",
                $"Protocol level: a method frame ({a.Sequence}) arrived on channel {a.Channel} while a command's content was unfinished"
                    + (a.InterruptedCall is { } c ? $" (call {c})" : "")
                    + "; RabbitMQ closes the connection with 505 UNEXPECTED_FRAME.",
                [a.Sequence],
                calls
            );
        }

        foreach (var cmd in wire.Commands)
        {
            int first = wire.Position[cmd.FirstSequence];
            int last = wire.Position[cmd.LastSequence];
            var mine = cmd.FrameSequences.ToHashSet();
            var intruders = new List<long>();
            for (int i = first; i <= last; i++)
                if (!mine.Contains(wire.Frames[i].Sequence))
                    intruders.Add(wire.Frames[i].Sequence);
            if (intruders.Count == 0)
                continue;
            if (intruders.All(q => wire.BySequence[q].Type == Protocol.FrameType.Heartbeat))
            {
                v.Add(
                    "heartbeat-inside-command",
                    $"Writer level: {intruders.Count} heartbeat frame(s) sit between frames {cmd.FirstSequence} and {cmd.LastSequence} of "
                        + (cmd.CallId is { } hb ? $"call {hb}" : "a command")
                        + $" on channel {cmd.Channel}: a heartbeat call is a command of its own, and goes out before or after another "
                        + "command, never inside it.",
                    [.. cmd.FrameSequences, .. intruders],
                    cmd.CallId is { } x0 ? [x0] : null
                );
                continue;
            }
            var others = intruders.Select(s => owner.GetValueOrDefault(s)?.CallId).OfType<int>().Distinct();
            var channels = intruders.Select(s => wire.BySequence[s].Channel).Distinct().ToArray();
            bool sameChannel = channels.Contains(cmd.Channel);
            v.Add(
                "frames-not-contiguous",
                $"Writer level: {intruders.Count} frame(s) of other commands (channel(s) {string.Join(",", channels)}) sit between frames "
                    + $"{cmd.FirstSequence} and {cmd.LastSequence} of "
                    + (cmd.CallId is { } id ? $"call {id}" : "a command")
                    + $" on channel {cmd.Channel}"
                    + (
                        sameChannel
                            ? ""
                            : " (legal for RabbitMQ across channels, but the writer promises atomic commands)"
                    )
                    + ".",
                [.. cmd.FrameSequences, .. intruders],
                [.. cmd.CallId is { } x ? new[] { x } : [], .. others]
            );
        }
    }
}
