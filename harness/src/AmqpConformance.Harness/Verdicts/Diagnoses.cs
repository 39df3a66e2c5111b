namespace AmqpConformance.Harness.Verdicts;

/// <summary>The step after judging (<see cref="Judgement.Of"/>): a violation of a rule that an earlier call's failure
/// can explain (<see cref="Rules"/>) gets a <see cref="Violation.Cause"/> naming the earlier call on the same channel
/// that failed or was cancelled, preferring one whose frames still reached the wire; a torn frame
/// (<see cref="TornFrameRules"/>) gets one naming the nearest call before it, on any channel of the connection, that was
/// cancelled or failed while its frames were written and whose frames still reached the wire. A hint for the reader,
/// not a verdict: it changes no rule, message or count.</summary>
internal static class Diagnoses
{
    /// <summary>The rules whose violations may follow an earlier failed or cancelled call on the same channel.</summary>
    public static readonly IReadOnlySet<string> Rules = new HashSet<string>(StringComparer.Ordinal)
    {
        "confirm-tag-mismatch",
        "call-hung",
        "ghost-after-cancel",
        "ghost-after-failure",
        "lost-publish",
    };

    /// <summary>The rules a torn frame breaks: the bytes of a write that was cancelled (or failed) part-way and then
    /// sent again in full, or cut short, land inside a frame, so its end octet, its body or its length come out
    /// wrong. The connection's writes share one stream, so the call to name may be on any channel.</summary>
    public static readonly IReadOnlySet<string> TornFrameRules = new HashSet<string>(StringComparer.Ordinal)
    {
        "bad-frame-end",
        "body-mismatch",
        "truncated-frame",
        "malformed-frame",
        "unknown-frame-type",
        "frame-too-large",
    };

    private static bool Explainable(Violation v) => Rules.Contains(v.Rule) || TornFrameRules.Contains(v.Rule);

    /// <summary><paramref name="verdicts"/> with a cause attached to each violation that an earlier call
    /// explains.</summary>
    public static IReadOnlyList<Verdict> Attach(
        ConformanceEvidence evidence,
        WireAssembly wire,
        IReadOnlyList<Verdict> verdicts
    )
    {
        if (!verdicts.Any(v => v.Violations.Any(Explainable)))
            return verdicts;
        var calls = evidence.Calls.GroupBy(c => c.Id).ToDictionary(g => g.Key, g => g.First());
        var tags = DeliveryTags(wire);
        return
        [
            .. verdicts.Select(v =>
                v.Violations.Any(Explainable)
                    ? v with
                    {
                        Violations =
                        [
                            .. v.Violations.Select(x =>
                                x with
                                {
                                    Cause = CauseOf(x, evidence, wire, calls, tags) ?? x.Cause,
                                }
                            ),
                        ],
                    }
                    : v
            ),
        ];
    }

    private static string? CauseOf(
        Violation violation,
        ConformanceEvidence evidence,
        WireAssembly wire,
        Dictionary<int, CallRecord> calls,
        Dictionary<int, ulong> tags
    )
    {
        if (TornFrameRules.Contains(violation.Rule))
            return TornFrameCause(violation, evidence, wire);
        if (!Rules.Contains(violation.Rule) || violation.Calls.Count == 0)
            return null;
        if (!calls.TryGetValue(violation.Calls[0], out var call))
            return null;
        if (violation.Rule is "ghost-after-cancel" or "ghost-after-failure" && InFlush(call))
            return $"Call {call.Id} {What(call)}: its exception was thrown in a flush, after its frames had been written "
                + "to the transport's buffer, and a flush that gives up does not take them back; the next flush sends them.";
        var earlier = evidence
            .Calls.Where(c =>
                c.Id != call.Id
                && c.Channel == call.Channel
                && !c.Heartbeat
                && c.Outcome is CallOutcome.Cancelled or CallOutcome.Failed
                && c.Started < call.Started
            )
            .OrderBy(c => c.Started)
            .ThenBy(c => c.Id)
            .ToList();
        var ghost = earlier.FirstOrDefault(c => wire.ByCall.ContainsKey(c.Id));
        if (violation.Rule == "confirm-tag-mismatch")
        {
            // Only a call whose frames went out shifts the broker's count past the client's.
            if (ghost is null || call.PublishSequenceNumber is not { } n || !tags.TryGetValue(call.Id, out var tag))
                return null;
            return $"Call {call.Id}'s publish sequence number is {Offset((long)n - (long)tag)} the broker's delivery tag "
                + $"after call {ghost.Id} (same channel) {What(ghost)} and its frames still went out.";
        }
        if (ghost is not null)
            return $"It follows call {ghost.Id} (same channel), which {What(ghost)} and whose frames still went out.";
        var last = earlier.LastOrDefault();
        return last is null
            ? null
            : $"It follows call {last.Id} (same channel), which {What(last)} (none of its frames on the wire).";
    }

    /// <summary>For a torn frame: the call, on any channel, that was cancelled or failed and whose frames reached the
    /// wire nearest before the torn frame (the violation's first frame; or, without one, the first frame of its first
    /// call); null when no such call exists.</summary>
    private static string? TornFrameCause(Violation violation, ConformanceEvidence evidence, WireAssembly wire)
    {
        long? torn =
            violation.Frames.Count > 0 ? violation.Frames[0]
            : violation.Calls.Count > 0 && wire.FirstOf(violation.Calls[0]) is { } first ? first.FrameSequences[0]
            : null;
        if (torn is not { } at)
            return null;
        var broken = evidence
            .Calls.Where(c => !c.Heartbeat && c.Outcome is CallOutcome.Cancelled or CallOutcome.Failed)
            .Select(c => (Call: c, First: wire.FirstOf(c.Id)?.FirstSequence ?? -1))
            .Where(x => x.First >= 0 && x.First <= at)
            .OrderByDescending(x => x.First)
            .FirstOrDefault();
        return broken.Call is null
            ? null
            : $"Frame {at} follows call {broken.Call.Id} (channel {broken.Call.Channel}), which {What(broken.Call)} and whose "
                + $"frames, from frame {broken.First} on, still went out: a write cancelled or failed part-way and then sent "
                + "again in full, or cut short, tears the frames it carries (docs/invariants.md, \"Torn frames\").";
    }

    /// <summary>"one behind", "2 ahead": the client's sequence number against the broker's tag.</summary>
    private static string Offset(long offset) =>
        (Math.Abs(offset) == 1 ? "one" : Math.Abs(offset).ToString(System.Globalization.CultureInfo.InvariantCulture))
        + (offset < 0 ? " behind" : " ahead of");

    private static string What(CallRecord c)
    {
        string verb = c.Outcome == CallOutcome.Cancelled ? "was cancelled" : "failed";
        return verb + (InFlush(c) ? " during its flush" : "") + (c.Error is { Length: > 0 } e ? $" ({e})" : "");
    }

    /// <summary>Whether <paramref name="c"/> ended in an exception thrown inside a flush (its stack names one): known
    /// only for calls whose exception the runner kept (<see cref="CallRecord.Exception"/>).</summary>
    private static bool InFlush(CallRecord c) =>
        c.Outcome is CallOutcome.Cancelled or CallOutcome.Failed
        && c.Exception?.StackTrace?.Contains("Flush", StringComparison.Ordinal) == true;

    /// <summary>The delivery tag the broker gives each call's publish: its position among the content commands on its
    /// channel, from 1 (as <see cref="OrderChecker"/> counts them).</summary>
    private static Dictionary<int, ulong> DeliveryTags(WireAssembly wire)
    {
        var tags = new Dictionary<int, ulong>();
        foreach (var channel in wire.Commands.Where(c => c.HasContent).GroupBy(c => c.Channel))
        {
            ulong tag = 0;
            foreach (var cmd in channel)
            {
                tag++;
                if (cmd.CallId is { } id)
                    tags.TryAdd(id, tag);
            }
        }
        return tags;
    }
}
