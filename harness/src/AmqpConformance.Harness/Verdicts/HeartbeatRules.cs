namespace AmqpConformance.Harness.Verdicts;

/// <summary>The order invariant's rules for heartbeat calls (<see cref="CallRecord.Heartbeat"/>), which name no call
/// on the wire and so are matched to the heartbeat frames (<see cref="WireAssembly.HeartbeatPositions"/>) by count and
/// order: the k-th heartbeat call to complete successfully, by <see cref="CallRecord.Ended"/>, against the k-th
/// heartbeat frame on the wire.</summary>
/// <remarks>
/// <para><c>lost-heartbeat</c>: fewer heartbeat frames on the wire than heartbeat calls that succeeded, with none of
/// <c>lost-publish</c>'s excuses (a transport fault, a disposal that never finished, a writer that gave up draining
/// through no fault of its own). <c>duplicate-heartbeat</c>: more heartbeat frames than heartbeat calls made (a call that
/// failed or was cancelled may have put its frame out before it ended, so only frames beyond every call made are
/// blamed). <c>heartbeat-order</c>: a heartbeat call that completed before another call started is on the wire before
/// that call's command, the call-order rule for calls that do not overlap: for each call B on the wire, at least as many
/// heartbeat frames precede B's first frame as heartbeat calls had completed successfully before B started (the
/// matching above exists exactly when this holds for every B).</para>
/// <para>Deliberately not judged: a heartbeat ahead of commands whose calls completed before it started (a writer may
/// keep a lane of its own for heartbeats, as some clients do: a heartbeat changes no state, so overtaking harms
/// nothing), and the order of heartbeats among themselves (they are identical). Frames of heartbeat calls that failed
/// or were cancelled count as heartbeat frames; that can only make the rules more lenient. A heartbeat frame between
/// another command's frames is the no-interleaving invariant's (<c>heartbeat-inside-command</c>). Judged only in a case
/// that made heartbeat calls: elsewhere (a whole client's own heartbeats at client level) heartbeat frames are not the
/// harness's to count.</para>
/// </remarks>
internal static class HeartbeatRules
{
    public static void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        var calls = evidence.Calls.Where(c => c.Heartbeat).ToList();
        if (calls.Count == 0)
            return;
        var frames = wire.HeartbeatPositions;
        var succeeded = calls
            .Where(c => c.Outcome == CallOutcome.Succeeded && c.Ended is not null)
            .OrderBy(c => c.Ended)
            .ThenBy(c => c.Id)
            .ToList();
        bool lost = false;
        if (
            frames.Count < succeeded.Count
            && evidence.Fault is null
            && evidence.Lifecycle is not { DisposeCompleted: false }
            && evidence.Lifecycle is not { MayHaveGivenUpDraining: true }
        )
        {
            lost = true;
            v.Add(
                "lost-heartbeat",
                $"{succeeded.Count} heartbeat call(s) completed successfully, but only {frames.Count} heartbeat frame(s) are on the "
                    + "wire, and no transport fault explains it: a heartbeat the writer accepted was dropped (or two were sent as one). "
                    + $"Matched in completion order, heartbeat call(s) {string.Join(", ", succeeded.Skip(frames.Count).Select(c => c.Id))} have no frame.",
                frames.Select(p => wire.Frames[p].Sequence),
                [.. succeeded.Skip(frames.Count).Select(c => c.Id)]
            );
        }
        if (frames.Count > calls.Count)
            v.Add(
                "duplicate-heartbeat",
                $"{frames.Count} heartbeat frames are on the wire, but only {calls.Count} heartbeat call(s) were made: the writer "
                    + "sent a heartbeat more than once.",
                frames.Select(p => wire.Frames[p].Sequence),
                [.. calls.Select(c => c.Id)]
            );
        if (lost || succeeded.Count == 0)
            return;
        // Each other call on the wire, by start: how many heartbeat calls had completed before it started, against how
        // many heartbeat frames precede its first frame. One violation, the first call it shows at.
        var others = evidence
            .Calls.Where(c => !c.Heartbeat && wire.FirstOf(c.Id) is not null)
            .Select(c => (Call: c, Pos: wire.Position[wire.FirstOf(c.Id)!.FirstSequence]))
            .OrderBy(x => x.Call.Started)
            .ThenBy(x => x.Call.Id);
        int due = 0;
        foreach (var (b, pos) in others)
        {
            while (due < succeeded.Count && succeeded[due].Ended < b.Started)
                due++;
            if (due == 0)
                continue;
            int before = CountBefore(frames, pos);
            if (before >= due)
                continue;
            var h = succeeded[before];
            v.Add(
                "heartbeat-order",
                $"Heartbeat call {h.Id} completed (at {h.Ended!.Value.TotalMilliseconds:0.###} ms) before call {b.Id} started "
                    + $"(at {b.Started.TotalMilliseconds:0.###} ms), yet call {b.Id}'s command (frame {wire.Frames[pos].Sequence}) is on the wire "
                    + $"first: {due} heartbeat call(s) had completed by then, and only {before} heartbeat frame(s) precede it. A heartbeat "
                    + "was held back behind a command queued after it.",
                [wire.Frames[pos].Sequence, .. frames.Skip(before).Take(1).Select(p => wire.Frames[p].Sequence)],
                [h.Id, b.Id]
            );
            return;
        }
    }

    /// <summary>How many of the ascending <paramref name="positions"/> are below <paramref name="pos"/>.</summary>
    private static int CountBefore(IReadOnlyList<int> positions, int pos)
    {
        int lo = 0,
            hi = positions.Count;
        while (lo < hi)
        {
            int mid = (lo + hi) / 2;
            if (positions[mid] < pos)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
}
