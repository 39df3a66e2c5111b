using AmqpConformance.Harness.Faults;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Generators;

/// <summary>
/// FsCheck generators for <see cref="Scenario"/>s. Body sizes are weighted to the edges of framing (0, 1, frame_max - 9/-8/-7,
/// multiples of frame_max - 8 plus or minus 1, just over the 85,000-byte large-object threshold, rarely up to 1 MiB); bodies
/// are slices of larger pooled arrays; frame_max spans the negotiable space; header tables run up to exactly what fits a frame.
/// </summary>
public static class ScenarioGenerators
{
    /// <summary>The frame_max values tried: 0 (unlimited), the minimum and its neighbour, common values, and anything from 4096 up.</summary>
    public static Gen<int> FrameMax { get; } = Gen.Frequency(
        (4, Gen.Constant(4096)), (1, Gen.Constant(0)), (2, Gen.Constant(4097)), (2, Gen.Constant(8192)),
        (1, Gen.Constant(131072)), (2, Gen.Choose(4096, 65536)));

    /// <summary>Body lengths for <paramref name="frameMax"/>, weighted to the framing edges; large sizes are rare.</summary>
    public static Gen<int> BodyLength(int frameMax)
    {
        int m = frameMax == 0 ? 131072 - 8 : frameMax - 8;
        return Gen.Frequency(
            (4, Gen.Constant(0)),
            (4, Gen.Constant(1)),
            (10, Gen.Choose(2, 300)),
            (6, Gen.Elements(m - 1, m, m + 1)),
            (5, Gen.Choose(2, 3).SelectMany(k => Gen.Elements(k * m - 1, k * m, k * m + 1))),
            (6, Gen.Choose(0, Math.Min(3 * m, 40_000))),
            (1, Gen.Choose(85_000, 86_000)),
            (1, Gen.Frequency((4, Gen.Choose(86_000, 262_144)), (1, Gen.Choose(262_144, 1 << 20)))));
    }

    /// <summary>One publish under <paramref name="frameMax"/>.</summary>
    public static Gen<PublishStep> Step(int frameMax)
    {
        int maxHeader = Math.Min(PublishCommandBuilder.MaxHeaderBytes(frameMax), 16 * 1024);
        var header = Gen.Frequency((12, Gen.Constant(0)), (3, Gen.Choose(1, 200)), (1, Gen.Choose(1, maxHeader)), (1, Gen.Constant(maxHeader)));
        var offset = Gen.Frequency((2, Gen.Constant(0)), (1, Gen.Choose(1, 64)));
        var cancel = Gen.Frequency((14, Gen.Constant(CancelKind.None)), (1, Gen.Constant(CancelKind.Before)),
            (3, Gen.Constant(CancelKind.OnFlush)), (1, Gen.Constant(CancelKind.Racing)));
        return
            from length in BodyLength(frameMax)
            from sliceOffset in offset
            from slack in offset
            from headerBytes in header
            from cancelKind in cancel
            from afterFlushes in Gen.Choose(1, 3)
            from owned in Gen.Frequency((4, Gen.Constant(false)), (1, Gen.Constant(true)))
            select new PublishStep(length, sliceOffset, slack, headerBytes, cancelKind, cancelKind == CancelKind.OnFlush ? afterFlushes : 1, owned);
    }

    /// <summary>A fault plan for a run that puts about <paramref name="expectedBytes"/> on the wire: mostly none, else a reset or
    /// close part-way, a slicer, latency or a short stall.</summary>
    public static Gen<FaultPlan> Faults(long expectedBytes)
    {
        int upTo = (int)Math.Clamp(expectedBytes, 1, int.MaxValue);
        var fault = Gen.Frequency(
            (3, Gen.Choose(0, upTo).Select(b => (Fault)new ResetPeerFault(b))),
            (2, Gen.Choose(0, upTo).Select(b => (Fault)new LimitDataFault(b))),
            (2, Gen.Choose(1, 4096).Select(s => (Fault)new SlicerFault(s, s / 2))),
            (1, Gen.Choose(1, 20).Select(ms => (Fault)new LatencyFault(ms, ms / 2))),
            (1, Gen.Choose(0, upTo).Select(b => (Fault)new StallFault(b, 5))));
        return Gen.Frequency(
            (5, Gen.Constant(FaultPlan.Empty)),
            (4, from seed in Gen.Choose(1, 10_000) from f in fault select new FaultPlan(seed, [f])),
            (1, from seed in Gen.Choose(1, 10_000) from fs in fault.ListOf(2) select new FaultPlan(seed, fs)));
    }

    /// <summary>Whole scenarios: 1-16 publishers (mostly few), 1-6 publishes each, any layout, any frame_max, a fault plan.</summary>
    public static Gen<Scenario> Scenario { get; } =
        from frameMax in FrameMax
        from layout in Gen.Frequency((3, Gen.Constant(ChannelLayout.OwnChannel)), (1, Gen.Constant(ChannelLayout.SharedChannel)), (1, Gen.Constant(ChannelLayout.Mixed)))
        from publisherCount in Gen.Frequency((6, Gen.Choose(1, 4)), (3, Gen.Choose(5, 8)), (1, Gen.Choose(9, 16)))
        from publishers in Step(frameMax).ListOf().Select(l => l.Count == 0 ? [new PublishStep(1)] : l)
            .Resize(6).ListOf(publisherCount)
        from seed in Gen.Choose(0, 1_000_000)
        let bytes = publishers.Sum(p => p.Sum(s => (long)s.BodyLength + s.HeaderBytes + 120))
        from faults in Faults(bytes)
        select new Scenario(frameMax, layout, [.. publishers.Select(p => (IReadOnlyList<PublishStep>)[.. p])], faults, seed);

    /// <summary>Scenarios for the backpressure property: the transport stalls from the start until the writer is blocked.</summary>
    public static Gen<Scenario> StalledScenario { get; } =
        from s in Scenario
        from more in Step(s.FrameMax).ListOf(12)
        select s with
        {
            StallUntilQuiet = true,
            Faults = FaultPlan.Empty,
            Publishers = [.. s.Publishers.Take(4).Select((p, i) => i == 0 ? (IReadOnlyList<PublishStep>)[.. p, .. more.Select(x => x with { Cancel = CancelKind.None })] : p)],
        };

    /// <summary>Scenarios for a whole client over TCP: at most 4 publishers, no body owners (a client API has none), faults that a
    /// TCP proxy can apply.</summary>
    public static Gen<Scenario> ClientScenario { get; } =
        from s in Scenario
        select s with
        {
            Publishers = [.. s.Publishers.Take(4).Select(p => (IReadOnlyList<PublishStep>)[.. p.Select(x => x with { WithBodyOwner = false })])],
            Faults = s.Faults with { Faults = [.. s.Faults.Faults.Where(f => f is ResetPeerFault or LimitDataFault or LatencyFault or SlicerFault)] },
        };

    /// <summary><see cref="ClientScenario"/> with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> ClientArbitrary { get; } = Arb.From(ClientScenario, ScenarioShrinker.Shrink);

    /// <summary><see cref="Scenario"/> with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> Arbitrary { get; } = Arb.From(Scenario, ScenarioShrinker.Shrink);

    /// <summary><see cref="StalledScenario"/> with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> StalledArbitrary { get; } = Arb.From(StalledScenario, ScenarioShrinker.Shrink);
}
