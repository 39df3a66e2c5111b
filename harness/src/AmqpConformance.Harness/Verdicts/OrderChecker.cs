namespace AmqpConformance.Harness.Verdicts;

/// <summary>Order: if call A completed before call B started, A is on the wire before B; each publisher's commands keep
/// its order (where its calls do not overlap: a pipelining publisher's may); a call that succeeded is on the wire
/// exactly once (unless the transport failed, the writer never finished disposing, or it gave up draining through no
/// fault of its own); with confirms on, the n-th publish on a channel carries the client's sequence number n (the
/// delivery tag the broker will use).</summary>
/// <remarks>Heartbeat calls (<see cref="CallRecord.Heartbeat"/>) are matched to the heartbeat frames on the wire by count
/// and order, since a heartbeat names no call: the k-th heartbeat call to complete successfully (by
/// <see cref="CallRecord.Ended"/>) is matched to the k-th heartbeat frame on the wire. Rules
/// (<see cref="HeartbeatRules"/>): fewer heartbeat frames than successful heartbeat calls is <c>lost-heartbeat</c>
/// (excused as <c>lost-publish</c> is); more heartbeat frames than heartbeat calls made is <c>duplicate-heartbeat</c>;
/// and a heartbeat call that completed before another call started is on the wire before that call's command
/// (<c>heartbeat-order</c>: at least k heartbeat frames precede the command of a call that started after k heartbeat calls
/// had completed). A heartbeat may go out before commands whose calls completed before it started (a writer may give
/// heartbeats a lane of their own: a heartbeat changes no state, so overtaking harms nothing), and heartbeat calls that
/// failed or were cancelled may have put their frame on the wire too: both only make the rules more lenient, never
/// blame a correct writer.</remarks>
public sealed class OrderChecker() : InvariantChecker(InvariantNames.Order)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        foreach (var call in evidence.Calls)
        {
            wire.ByCall.TryGetValue(call.Id, out var cmds);
            if (cmds is { Count: > 1 })
                v.Add(
                    "duplicate-publish",
                    $"Call {call.Id} is on the wire {cmds.Count} times.",
                    cmds.Select(c => c.FirstSequence),
                    [call.Id]
                );
            // Only once the writer disposed: while its disposal is still draining (reported by the lifecycle
            // invariant), the call may be on its way; and a writer that completes on enqueue may drop what it held when
            // it gave up draining an output the harness held, or while the process could not run
            // (LifecycleRecord.MayHaveGivenUpDraining).
            if (
                call.Outcome == CallOutcome.Succeeded
                && !call.Heartbeat
                && cmds is null
                && evidence.Fault is null
                && evidence.Lifecycle is not { DisposeCompleted: false }
                && evidence.Lifecycle is not { MayHaveGivenUpDraining: true }
            )
                v.Add(
                    "lost-publish",
                    $"Call {call.Id} (publisher {call.Publisher}, #{call.IndexInPublisher}) completed successfully but never reached the wire, and no transport fault explains it.",
                    null,
                    [call.Id]
                );
        }

        // Calls on the wire with their position; sweep by start time keeping the latest-positioned call that had
        // already ended.
        var onWire = evidence
            .Calls.Where(c => c.Ended is not null && wire.FirstOf(c.Id) is not null)
            .Select(c => (Call: c, Pos: wire.Position[wire.FirstOf(c.Id)!.FirstSequence]))
            .ToList();
        var byEnd = onWire.OrderBy(x => x.Call.Ended).ToList();
        int e = 0;
        (CallRecord Call, int Pos)? latest = null;
        foreach (var b in onWire.OrderBy(x => x.Call.Started))
        {
            while (e < byEnd.Count && byEnd[e].Call.Ended < b.Call.Started)
            {
                if (latest is null || byEnd[e].Pos > latest.Value.Pos)
                    latest = byEnd[e];
                e++;
            }
            if (latest is { } a && a.Pos > b.Pos)
                v.Add(
                    "call-order",
                    $"Call {a.Call.Id} completed (at {a.Call.Ended!.Value.TotalMilliseconds:0.###} ms) before call {b.Call.Id} started "
                        + $"(at {b.Call.Started.TotalMilliseconds:0.###} ms), yet call {b.Call.Id} is on the wire first.",
                    [wire.Frames[b.Pos].Sequence, wire.Frames[a.Pos].Sequence],
                    [a.Call.Id, b.Call.Id]
                );
        }

        foreach (var group in onWire.GroupBy(x => x.Call.Publisher))
        {
            var seq = group.OrderBy(x => x.Call.IndexInPublisher).ToList();
            for (int i = 1; i < seq.Count; i++)
                if (seq[i].Pos < seq[i - 1].Pos && !seq[i].Call.Pipelined)
                    v.Add(
                        "publisher-order",
                        $"Publisher {group.Key}'s call #{seq[i].Call.IndexInPublisher} (call {seq[i].Call.Id}) is on the wire before its call #{seq[i - 1].Call.IndexInPublisher} (call {seq[i - 1].Call.Id}).",
                        [wire.Frames[seq[i].Pos].Sequence, wire.Frames[seq[i - 1].Pos].Sequence],
                        [seq[i - 1].Call.Id, seq[i].Call.Id]
                    );
        }

        HeartbeatRules.Judge(evidence, wire, v);

        if (evidence.ConfirmsEnabled)
        {
            var calls = evidence.Calls.ToDictionary(c => c.Id);
            foreach (var channel in wire.Commands.Where(c => c.HasContent).GroupBy(c => c.Channel))
            {
                ulong tag = 0;
                foreach (var cmd in channel)
                {
                    tag++;
                    if (
                        cmd.CallId is { } id
                        && calls.TryGetValue(id, out var call)
                        && call.PublishSequenceNumber is { } n
                        && n != tag
                    )
                        v.Add(
                            "confirm-tag-mismatch",
                            $"Call {id} got publish sequence number {n} from the client, but it is publish #{tag} on channel {channel.Key}, so the broker will confirm it as delivery tag {tag}.",
                            [cmd.FirstSequence],
                            [id]
                        );
                }
            }
        }
    }
}
