using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Generators;

/// <summary>Builds the script of a scripted case from its publishers and its features: every publish becomes a call
/// step, in an order that interleaves the publishers, and control steps land between them: holds with their releases
/// (some racing a cancellation or the next call) and pulses (held flushes complete, the next waits again),
/// cancellations of the call just made or of an older one, a reset or an orderly close with calls after it, disposal
/// with calls pending and calls after it, half the time started at the same moment as a call
/// (<see cref="ScriptActionKind.DisposeRacingCall"/>), and now and then an idle connection
/// (<see cref="ScriptActionKind.Idle"/>) or a held flush that stays stalled for seconds
/// (<see cref="ScriptActionKind.Stall"/>), and in one script with holds in four (two with five publishers or more) a
/// stall train (<see cref="StallTrain"/>): calls of every publisher queued behind a held flush, then each flush stalled
/// in turn. Drawn from a seeded <see cref="Random"/>, so a generated scenario carries its script explicitly.</summary>
public static class ScriptGenerator
{
    /// <summary>A script for publishers with <paramref name="stepCounts"/> publishes each.</summary>
    public static IReadOnlyList<ScriptAction> Build(
        IReadOnlyList<int> stepCounts,
        SwarmFeatures features,
        Random random
    )
    {
        ArgumentNullException.ThrowIfNull(stepCounts);
        ArgumentNullException.ThrowIfNull(features);
        ArgumentNullException.ThrowIfNull(random);
        var order = CallOrder(stepCounts, random);
        var actions = new List<ScriptAction>();
        bool holding = false,
            reset = false,
            disposed = false,
            raceNextCall = false,
            disposeRacesCall = false;
        // Disposal and resets land after at least one call and, where there are enough calls, before the last one or
        // two, so that there are calls pending at the time and calls after it.
        int disposeAt = features.Dispose ? random.Next(Math.Max(1, order.Count - 2), order.Count + 1) : -1;
        if (features.Dispose && order.Count > 2 && random.Next(2) == 0)
            disposeAt = random.Next(1, order.Count);
        int resetAt = features.Reset ? random.Next(0, Math.Max(1, order.Count - 1)) : -1;
        // With holds, the output often stalls a few calls before disposal, so that a writer that completes calls on
        // enqueue has calls parked (queue full) when disposal begins.
        int holdFrom =
            features.Dispose && features.Holds && disposeAt > 0 && random.Next(3) != 0
                ? Math.Max(0, disposeAt - random.Next(2, 6))
                : -1;
        // Half the disposals before a call start at the same moment as that call, on an idle writer (the output not
        // held, unless it is to stay stalled through disposal): a call parked behind a held flush cannot be between its
        // entry and its queue.
        bool racingDispose = features.Dispose && disposeAt < order.Count && random.Next(2) == 0;
        if (racingDispose)
            holdFrom = -1;
        // In one script with holds in four (in two, with five publishers or more, where the train is long enough to
        // wait 80 s and more behind), a stall train from a call in the script's first half (put off while a race is
        // pending, dropped once the writer is disposed or the transport failed).
        int withCalls = stepCounts.Count(n => n > 0);
        int trainAt =
            features.Holds && withCalls >= 2 && random.Next(withCalls >= 5 ? 2 : 4) == 0
                ? random.Next(0, Math.Max(1, order.Count / 2))
                : -1;
        for (int i = 0; i < order.Count; i++)
        {
            // ">=": a stall train takes several calls in one go, and a reset or disposal due among them comes right
            // after it.
            if (resetAt >= 0 && i >= resetAt && !reset)
            {
                actions.Add(random.Next(2) == 0 ? ScriptAction.Reset : ScriptAction.Close);
                reset = true;
            }
            if (disposeAt >= 0 && i >= disposeAt && !disposed)
                Dispose(raceNextCall: racingDispose);
            if (trainAt >= 0 && i >= trainAt && !reset && !disposed && !disposeRacesCall && !raceNextCall)
            {
                trainAt = -1;
                int calls = StallTrain(order, i, actions, holding);
                if (calls > 0)
                {
                    holding = true;
                    i += calls - 1;
                    continue;
                }
            }
            if (features.Holds && !holding && !disposeRacesCall && (i == holdFrom || random.NextDouble() < 0.4))
            {
                actions.Add(ScriptAction.Hold);
                holding = true;
            }
            int p = order[i];
            if (disposeRacesCall)
            {
                actions.Add(ScriptAction.DisposeRacingCall(p, DisposeRaceSpins[random.Next(DisposeRaceSpins.Length)]));
                disposeRacesCall = false;
            }
            else if (raceNextCall && holding)
            {
                actions.Add(ScriptAction.ReleaseRacingCall(p));
                holding = false;
            }
            else
                actions.Add(ScriptAction.Call(p));
            raceNextCall = false;
            if (features.Cancellation && random.NextDouble() < 0.35)
                actions.Add(ScriptAction.Cancel(random.NextDouble() < 0.7 ? p : order[random.Next(0, i + 1)]));
            // Now and then the connection sits idle (two minutes of the case's time) between calls on a healthy output.
            if (!holding && !disposed && random.NextDouble() < 0.1)
                actions.Add(ScriptAction.Idle);
            bool keepHolding =
                (holdFrom >= 0 && i >= holdFrom && !disposed) || (disposed && features.StallThroughDispose);
            // Now and then a held flush stays stalled for seconds of the case's time, the writer's timers firing with
            // the call in flight.
            if (holding && !disposed && random.NextDouble() < 0.15)
                actions.Add(ScriptAction.Stall);
            // Now and then the stalled output drains what it holds and stalls again at once (never once the output is
            // to stay stalled through disposal).
            if (holding && !(disposed && features.StallThroughDispose) && random.NextDouble() < 0.4)
                actions.Add(ScriptAction.Pulse);
            if (holding && !keepHolding && random.NextDouble() < 0.3)
            {
                // Release now, or race the release with the next call, or with a cancellation.
                if (i + 1 < order.Count && random.Next(3) == 0)
                    raceNextCall = true;
                else
                {
                    actions.Add(
                        features.Cancellation && random.NextDouble() < 0.5
                            ? ScriptAction.ReleaseRacingCancel(order[random.Next(0, i + 1)])
                            : ScriptAction.Release
                    );
                    holding = false;
                }
            }
        }
        if (features.Dispose && !disposed)
            Dispose(raceNextCall: false);
        if (holding && !features.StallThroughDispose && random.Next(2) == 0)
            actions.Add(ScriptAction.Release);
        return actions;

        // Disposal; with the output to stay stalled through it, the output is held from just before it and never
        // released. Racing the next call, it starts at the same moment as that call instead of before it, the output
        // released first unless it is to stay stalled.
        void Dispose(bool raceNextCall)
        {
            if (raceNextCall && holding && !features.StallThroughDispose)
            {
                actions.Add(ScriptAction.Release);
                holding = false;
            }
            if (features.StallThroughDispose && !holding)
            {
                actions.Add(ScriptAction.Hold);
                holding = true;
            }
            if (raceNextCall)
                disposeRacesCall = true;
            else
                actions.Add(ScriptAction.Dispose);
            disposed = true;
        }
    }

    /// <summary>At most this many calls queue in a stall train (<see cref="StallTrain"/>), so at most this many flushes
    /// are stalled in turn: 160 s of the case's clock.</summary>
    public const int MaxStallTrainCalls = 8;

    /// <summary>A stall train at <paramref name="at"/> in <paramref name="order"/>: the output held (a
    /// <see cref="ScriptAction.Hold"/> unless <paramref name="holding"/>), then one call of each publisher that has one
    /// left (up to <see cref="MaxStallTrainCalls"/>, each publisher's earliest remaining call brought forward, so every
    /// publisher keeps its own order), queued behind one another; then, once per call, a
    /// <see cref="ScriptAction.Stall"/> (the flush pending then stays stalled for <see cref="ScriptAction.StallSpan"/>)
    /// and a <see cref="ScriptAction.Pulse"/> (it completes, and the next queued call's flush is held). No flush is
    /// stalled for longer than one stall, but a call queued at the back waits behind all of them: with five or more
    /// publishers, 80 s and more before its own flush even starts. The output stays held after it. Returns how many
    /// calls it took (0, adding nothing, when fewer than two publishers have a call left).</summary>
    /// <remarks>Without a train a call waits behind a stall or two at most, and a writer whose write deadline starts
    /// when the call is made (90 s, say), so that the wait behind other stalled flushes counts against it, is never
    /// caught (docs/decisions.md, "Calls queued behind flushes stalled one after another").</remarks>
    private static int StallTrain(List<int> order, int at, List<ScriptAction> actions, bool holding)
    {
        var firsts = new List<int>();
        for (int j = at; j < order.Count && firsts.Count < MaxStallTrainCalls; j++)
            if (!firsts.Any(k => order[k] == order[j]))
                firsts.Add(j);
        if (firsts.Count < 2)
            return 0;
        var queued = firsts.Select(j => order[j]).ToList();
        for (int k = firsts.Count - 1; k >= 0; k--)
            order.RemoveAt(firsts[k]);
        order.InsertRange(at, queued);
        if (!holding)
            actions.Add(ScriptAction.Hold);
        actions.AddRange(queued.Select(ScriptAction.Call));
        foreach (var _ in queued)
        {
            actions.Add(ScriptAction.Stall);
            actions.Add(ScriptAction.Pulse);
        }
        return queued.Count;
    }

    /// <summary>How long disposal waits after being let go at the same moment as a call (spin iterations, about 10-40
    /// ns each): none to about 50 µs, most of them under a microsecond, so that across cases it lands before the call's
    /// entry check, inside whatever the call does before it queues or takes a lock (copying a body, renting), and
    /// after.</summary>
    private static readonly int[] DisposeRaceSpins = [0, 5, 10, 20, 40, 80, 160, 400, 1500];

    /// <summary>Every publish once, publishers interleaved at random, each publisher's publishes in its own
    /// order.</summary>
    private static List<int> CallOrder(IReadOnlyList<int> stepCounts, Random random)
    {
        var left = stepCounts.ToArray();
        var order = new List<int>(left.Sum());
        while (order.Count < order.Capacity)
        {
            int p = random.Next(left.Length);
            while (left[p] == 0)
                p = (p + 1) % left.Length;
            left[p]--;
            order.Add(p);
        }
        return order;
    }
}
