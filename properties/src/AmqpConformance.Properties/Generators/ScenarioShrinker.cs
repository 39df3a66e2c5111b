using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Generators;

/// <summary>Shrinks a failing <see cref="Scenario"/> toward a small readable one: first one connection instead of several, then drop faults, publishers,
/// publishes and script steps, then simplify the settings (default queue and threshold, no noise, no stall through
/// disposal, one disposal, channels from 1), the layout and frame_max, then each publish (a token, no cancellation, no
/// owner, no headers, no slicing, shorter body). Every candidate is strictly simpler, so shrinking ends; a script stays
/// consistent with its publishers (a publisher's removal removes its steps and renumbers the others).</summary>
public static class ScenarioShrinker
{
    /// <summary>Simpler scenarios than <paramref name="s"/>, most aggressive first, lazily.</summary>
    public static IEnumerable<Scenario> Shrink(Scenario s)
    {
        ArgumentNullException.ThrowIfNull(s);
        if (s.Connections > 1)
            yield return s with
            {
                Connections = 1,
            };
        if (s.Connections > 2)
            yield return s with
            {
                Connections = 2,
            };
        foreach (var plan in s.Faults.ShrinkCandidates())
            yield return s with
            {
                Faults = plan,
            };
        if (s.Publishers.Count > 1)
        {
            yield return WithoutPublishersAfter(s, 0);
            for (int p = 0; p < s.Publishers.Count; p++)
                yield return WithoutPublisher(s, p);
        }
        for (int p = 0; p < s.Publishers.Count; p++)
        {
            var steps = s.Publishers[p];
            if (steps.Count <= 1)
                continue;
            if (steps.Count > 2)
                yield return WithSteps(s, p, [.. steps.Take(steps.Count / 2)]);
            for (int i = 0; i < steps.Count; i++)
                yield return WithSteps(s, p, [.. steps.Where((_, j) => j != i)]);
        }
        if (s.Script is { } script)
            for (int i = 0; i < script.Count; i++)
                if (script[i].Kind != ScriptActionKind.Call)
                    yield return s with
                    {
                        Script = [.. script.Where((_, j) => j != i)],
                    };
        if (s.QueueCapacity != WriterContext.DefaultQueueCapacity)
            yield return s with
            {
                QueueCapacity = WriterContext.DefaultQueueCapacity,
            };
        if (s.OutputThreshold != 64 * 1024)
            yield return s with
            {
                OutputThreshold = 64 * 1024,
            };
        if (s.Noise)
            yield return s with
            {
                Noise = false,
            };
        if (s.CloseAsCompletion)
            yield return s with
            {
                CloseAsCompletion = false,
            };
        if (s.StallThroughDispose)
            yield return s with
            {
                StallThroughDispose = false,
            };
        if (s.SecondDisposal != SecondDisposal.None)
            yield return s with
            {
                SecondDisposal = SecondDisposal.None,
            };
        if (s.ChannelBase != 1)
            yield return s with
            {
                ChannelBase = 1,
            };
        if (s.ChannelsSpread)
            yield return s with
            {
                ChannelsSpread = false,
            };
        if (s.Continuing)
            yield return s with
            {
                Continuing = false,
            };
        if (s.Layout != ChannelLayout.OwnChannel)
            yield return s with
            {
                Layout = ChannelLayout.OwnChannel,
            };
        if (
            s.FrameMax != 4096
            && s.Publishers.All(p => p.All(x => x.HeaderBytes <= CallCommandBuilder.MaxHeaderBytes(4096)))
        )
            yield return s with
            {
                FrameMax = 4096,
            };
        for (int p = 0; p < s.Publishers.Count; p++)
        for (int i = 0; i < s.Publishers[p].Count; i++)
            foreach (var simpler in ShrinkStep(s.Publishers[p][i], s.FrameMax))
            {
                var steps = s.Publishers[p].ToArray();
                steps[i] = simpler;
                yield return s with
                {
                    Publishers = Replace(s.Publishers, p, steps),
                };
            }
    }

    private static IEnumerable<CallStep> ShrinkStep(CallStep step, int frameMax)
    {
        if (step.ConnectionLevel)
            yield return step with
            {
                ConnectionLevel = false,
            };
        if (step.WithoutToken)
            yield return step with
            {
                WithoutToken = false,
            };
        if (step.Cancel != CancelKind.None)
            yield return step with
            {
                Cancel = CancelKind.None,
                CancelAfterFlushes = 1,
            };
        if (step.CancelAfterFlushes > 1)
            yield return step with
            {
                CancelAfterFlushes = step.CancelAfterFlushes - 1,
            };
        if (step.WithBodyOwner)
            yield return step with
            {
                WithBodyOwner = false,
            };
        if (step.OpaqueBody)
            yield return step with
            {
                OpaqueBody = false,
            };
        if (step.HeaderBytes > 0)
            yield return step with
            {
                HeaderBytes = 0,
            };
        if (step.SliceOffset > 0 || step.SliceSlack > 0)
            yield return step with
            {
                SliceOffset = 0,
                SliceSlack = 0,
            };
        int m = frameMax == 0 ? 131072 - 8 : frameMax - 8;
        var lengths = new SortedSet<int> { 0, 1, m, m + 1, 2 * m + 1, step.BodyLength / 2, step.BodyLength - 1 };
        foreach (int length in lengths.Where(l => l >= 0 && l < step.BodyLength))
            yield return step with
            {
                BodyLength = length,
            };
    }

    /// <summary>Publisher <paramref name="publisher"/> with <paramref name="steps"/> (fewer); its surplus calls leave
    /// the script.</summary>
    private static Scenario WithSteps(Scenario s, int publisher, IReadOnlyList<CallStep> steps)
    {
        var shrunk = s with { Publishers = Replace(s.Publishers, publisher, steps) };
        if (s.Script is null)
            return shrunk;
        int surplus = s.Publishers[publisher].Count - steps.Count;
        var script = s.Script.ToList();
        for (int i = script.Count - 1; i >= 0 && surplus > 0; i--)
            if (script[i].Kind == ScriptActionKind.Call && script[i].Publisher == publisher)
            {
                script.RemoveAt(i);
                surplus--;
            }
        return shrunk with { Script = script };
    }

    private static Scenario WithoutPublisher(Scenario s, int publisher) =>
        s with
        {
            Publishers = [.. s.Publishers.Where((_, i) => i != publisher)],
            Script = s
                .Script?.Where(a => a.Publisher != publisher)
                .Select(a => a.Publisher > publisher ? a with { Publisher = a.Publisher - 1 } : a)
                .ToList(),
        };

    private static Scenario WithoutPublishersAfter(Scenario s, int keep) =>
        s with
        {
            Publishers = [.. s.Publishers.Take(keep + 1)],
            Script = s.Script?.Where(a => a.Publisher <= keep).ToList(),
        };

    private static IReadOnlyList<IReadOnlyList<CallStep>> Replace(
        IReadOnlyList<IReadOnlyList<CallStep>> publishers,
        int index,
        IReadOnlyList<CallStep> steps
    ) => [.. publishers.Select((x, i) => i == index ? steps : x)];
}
