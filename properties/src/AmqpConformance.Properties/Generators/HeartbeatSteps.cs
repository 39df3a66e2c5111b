using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Generators;

/// <summary>Heartbeat calls in generated cases (<see cref="SwarmFeatures.Heartbeats"/>): in such a case one call in
/// <see cref="OneIn"/> becomes a heartbeat (<see cref="CallStep.ForHeartbeat"/>, keeping the call's cancellation and
/// token), at least one per case, as a client's heartbeat timer fires between its publishes. So heartbeats meet
/// whatever the case does around them: other publishers' commands queued ahead of and behind them (free-running), a
/// pipelining publisher's calls overlapping them, a held or stalled flush, a stall train, a reset or close and calls
/// after it, disposal (scripted). Drawn from a <see cref="Random"/> of the case's own, after everything else, so the
/// rest of a case is what it would be without them.</summary>
public static class HeartbeatSteps
{
    /// <summary>In a case with heartbeats, one call in this many is one.</summary>
    public const int OneIn = 5;

    /// <summary><paramref name="publishers"/> with about one call in <see cref="OneIn"/> made a heartbeat, at least one
    /// in all, drawn from <paramref name="random"/>. With <paramref name="largeBurst"/>, the first two calls of
    /// publishers 0 to 2 (the burst's large publishes) stay as they are.</summary>
    public static IReadOnlyList<IReadOnlyList<CallStep>> Into(
        IReadOnlyList<IReadOnlyList<CallStep>> publishers,
        Random random,
        bool largeBurst = false
    )
    {
        ArgumentNullException.ThrowIfNull(publishers);
        ArgumentNullException.ThrowIfNull(random);
        var result = publishers.Select(p => p.ToArray()).ToList();
        var eligible = new List<(int P, int I)>();
        for (int p = 0; p < result.Count; p++)
        for (int i = 0; i < result[p].Length; i++)
            if (!(largeBurst && p < 3 && i < 2))
                eligible.Add((p, i));
        if (eligible.Count == 0)
            return publishers;
        bool any = false;
        foreach (var (p, i) in eligible)
            if (random.Next(OneIn) == 0)
            {
                result[p][i] = AsHeartbeat(result[p][i]);
                any = true;
            }
        if (!any)
        {
            var (p, i) = eligible[random.Next(eligible.Count)];
            result[p][i] = AsHeartbeat(result[p][i]);
        }
        return [.. result.Select(p => (IReadOnlyList<CallStep>)p)];
    }

    private static CallStep AsHeartbeat(CallStep step) =>
        CallStep.ForHeartbeat(step.Cancel, step.CancelAfterFlushes) with
        {
            WithoutToken = step.WithoutToken,
        };
}
