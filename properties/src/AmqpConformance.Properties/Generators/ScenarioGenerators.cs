using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Generators;

/// <summary>
/// FsCheck generators for <see cref="Scenario"/>s. Each case first draws its <see cref="SwarmFeatures"/> from a
/// <see cref="ScenarioProfile"/>, then everything else within them. Body sizes are weighted to the edges of framing (0,
/// 1, frame_max - 9/-8/-7, multiples of frame_max - 8 plus or minus 1, just over the 85,000-byte large-object
/// threshold, rarely up to 1 MiB and now and then past it, up to 3 MiB); bodies are slices of larger pooled arrays;
/// frame_max spans the negotiable space; header tables run up to exactly what fits a frame; queue capacities and the
/// transport's threshold are small often enough that queue-full and backpressure paths are common and cheap.
/// </summary>
public static class ScenarioGenerators
{
    /// <summary>The frame_max values tried: 0 (unlimited), the minimum and its neighbour, common values, anything from
    /// 4096 up, and now and then above RabbitMQ's default of 131072: a broker may be configured past it, and a writer
    /// that takes 131072 for the largest frame_max (a frame scratch capped there) shows only above it.</summary>
    public static Gen<int> FrameMax { get; } =
        Gen.Frequency(
            (4, Gen.Constant(4096)),
            (2, Gen.Constant(0)),
            (2, Gen.Constant(4097)),
            (2, Gen.Constant(8192)),
            (1, Gen.Constant(131072)),
            (2, Gen.Choose(4096, 65536)),
            (1, Gen.Choose(131073, 262144))
        );

    /// <summary>The largest body generated: 3 MiB.</summary>
    public const int LargestBody = 3 << 20;

    /// <summary>Body lengths for <paramref name="frameMax"/>, weighted to the framing edges; with
    /// <paramref name="large"/>, sizes up to <see cref="LargestBody"/>, past 1 MiB rarely.</summary>
    public static Gen<int> BodyLength(int frameMax, bool large = true)
    {
        int m = frameMax == 0 ? 131072 - 8 : frameMax - 8;
        var small = new List<(int, Gen<int>)>
        {
            (4, Gen.Constant(0)),
            (4, Gen.Constant(1)),
            (10, Gen.Choose(2, 300)),
            (6, Gen.Elements(m - 1, m, m + 1)),
            (5, Gen.Choose(2, 3).SelectMany(k => Gen.Elements(k * m - 1, k * m, k * m + 1))),
            (6, Gen.Choose(0, Math.Min(3 * m, 40_000))),
        };
        // Bodies that bring the whole command (method, header and one body frame) to frame_max, give or take a few
        // bytes: a writer that serializes a command "that fits one frame" into a frame_max-sized buffer and forgets a
        // frame's 8 bytes of overhead overflows only there, and bodies drawn otherwise land there only by chance.
        if (frameMax > 0)
            small.Add(
                (
                    3,
                    Gen.Choose(-2, 10)
                        .Select(d => Math.Max(0, frameMax - CallCommandBuilder.FramesLengthWithoutHeaders - d))
                )
            );
        if (large)
        {
            small.Add((2, Gen.Choose(85_000, 86_000)));
            small.Add((2, Gen.Frequency((4, Gen.Choose(86_000, 262_144)), (1, Gen.Choose(262_144, 1 << 20)))));
            // Past 1 MiB, where a writer that slices large bodies (to bound what one call parks in the pipe) restarts
            // its framing: 1 MiB plus a few frames' worth, plus or minus one, or anything up to 3 MiB.
            small.Add(
                (
                    1,
                    Gen.Frequency(
                        (
                            2,
                            Gen.Choose(1, 3)
                                .SelectMany(k =>
                                    Gen.Elements((1 << 20) + k * m - 1, (1 << 20) + k * m, (1 << 20) + k * m + 1)
                                )
                        ),
                        (1, Gen.Choose((1 << 20) + 1, LargestBody))
                    )
                )
            );
        }
        return Gen.Frequency([.. small]);
    }

    /// <summary>One call under <paramref name="frameMax"/>, with what <paramref name="features"/> allow: a publish, or
    /// with <see cref="SwarmFeatures.Methods"/> in one call in four a command without content (cancellable like a
    /// publish), a third of those on channel 0 (<see cref="CallStep.ConnectionLevel"/>); a third of the calls nobody
    /// cancels pass no token at all (<see cref="CallStep.WithoutToken"/>).</summary>
    public static Gen<CallStep> Step(int frameMax, SwarmFeatures features)
    {
        ArgumentNullException.ThrowIfNull(features);
        int maxHeader = Math.Min(CallCommandBuilder.MaxHeaderBytes(frameMax), 16 * 1024);
        var header = features.Headers
            ? Gen.Frequency(
                (6, Gen.Constant(0)),
                (3, Gen.Choose(1, 200)),
                (1, Gen.Choose(1, maxHeader)),
                (1, Gen.Constant(maxHeader))
            )
            : Gen.Constant(0);
        var offset = Gen.Frequency((2, Gen.Constant(0)), (1, Gen.Choose(1, 64)));
        // Free-running cases cancel from inside the call (on a flush, on a request for memory, racing, before) or after
        // it; scripted ones also by script steps.
        var cancel = features.Cancellation
            ? Gen.Frequency(
                (8, Gen.Constant(CancelKind.None)),
                (1, Gen.Constant(CancelKind.Before)),
                (3, Gen.Constant(CancelKind.OnFlush)),
                (2, Gen.Constant(CancelKind.OnWrite)),
                (2, Gen.Constant(CancelKind.Racing)),
                (2, Gen.Constant(CancelKind.AfterCompletion))
            )
            : Gen.Constant(CancelKind.None);
        var owned = features.Owners
            ? Gen.Frequency((3, Gen.Constant(false)), (2, Gen.Constant(true)))
            : Gen.Constant(false);
        var methodOnly = features.Methods
            ? Gen.Frequency((3, Gen.Constant(false)), (1, Gen.Constant(true)))
            : Gen.Constant(false);
        return from length in BodyLength(frameMax, features.LargeBodies)
            from sliceOffset in offset
            from slack in offset
            from headerBytes in header
            from cancelKind in cancel
            from afterFlushes in Gen.Choose(1, 3)
            from withOwner in owned
            from withoutContent in methodOnly
            from onChannelZero in Gen.Frequency((2, Gen.Constant(false)), (1, Gen.Constant(true)))
            from noToken in Gen.Frequency((2, Gen.Constant(false)), (1, Gen.Constant(true)))
            from opaque in OpaqueBody
            let flushes = cancelKind is CancelKind.OnFlush or CancelKind.OnWrite ? afterFlushes : 1
            let withoutToken = noToken && cancelKind == CancelKind.None
            select withoutContent
                ? CallStep.WithoutContent(cancelKind, flushes, onChannelZero) with
                {
                    WithoutToken = withoutToken,
                }
                : new CallStep(
                    length,
                    sliceOffset,
                    slack,
                    headerBytes,
                    cancelKind,
                    flushes,
                    withOwner,
                    WithoutToken: withoutToken,
                    OpaqueBody: opaque && length > 0
                );
    }

    /// <summary>Whether a publish hands its body over as memory that is not an array
    /// (<see cref="CallStep.OpaqueBody"/>): one in six.</summary>
    public static Gen<bool> OpaqueBody { get; } = Gen.Frequency((5, Gen.Constant(false)), (1, Gen.Constant(true)));

    /// <summary>One call of a pipelined publisher: a <see cref="Step"/> with a small body (0, 1, up to 300 bytes, now
    /// and then one frame's worth), so that dozens of them fit a case.</summary>
    public static Gen<CallStep> PipelinedStep(int frameMax, SwarmFeatures features)
    {
        ArgumentNullException.ThrowIfNull(features);
        int m = frameMax == 0 ? 131072 - 8 : frameMax - 8;
        var small = Gen.Frequency(
            (2, Gen.Constant(0)),
            (2, Gen.Constant(1)),
            (8, Gen.Choose(2, 300)),
            (1, Gen.Elements(m - 1, m, m + 1))
        );
        return from step in Step(frameMax, features with { LargeBodies = false })
            from length in small
            select step.MethodOnly ? step : step with { BodyLength = length };
    }

    /// <summary>A non-empty fault plan for a run that puts about <paramref name="expectedBytes"/> on the wire: a reset
    /// or close part-way, a slicer, latency or a short stall; sometimes two.</summary>
    public static Gen<FaultPlan> Faults(long expectedBytes)
    {
        int upTo = (int)Math.Clamp(expectedBytes, 1, int.MaxValue);
        var fault = Gen.Frequency(
            (3, Gen.Choose(0, upTo).Select(b => (Fault)new ResetPeerFault(b))),
            (2, Gen.Choose(0, upTo).Select(b => (Fault)new LimitDataFault(b))),
            (2, Gen.Choose(1, 4096).Select(s => (Fault)new SlicerFault(s, s / 2))),
            (1, Gen.Choose(1, 20).Select(ms => (Fault)new LatencyFault(ms, ms / 2))),
            (1, Gen.Choose(0, upTo).Select(b => (Fault)new StallFault(b, 5)))
        );
        return Gen.Frequency(
            (4, from seed in Gen.Choose(1, 10_000) from f in fault select new FaultPlan(seed, [f])),
            (1, from seed in Gen.Choose(1, 10_000) from fs in fault.ListOf(2) select new FaultPlan(seed, fs))
        );
    }

    /// <summary>Draws a case's features from <paramref name="profile"/>.</summary>
    public static Gen<SwarmFeatures> Features(ScenarioProfile profile)
    {
        ArgumentNullException.ThrowIfNull(profile);
        return Gen.Choose(0, int.MaxValue)
            .Select(seed =>
            {
                var r = new Random(seed);
                bool On(double p) => r.NextDouble() < p;
                bool scripted = On(profile.Scripted);
                bool dispose = scripted && On(profile.Dispose);
                bool transportStall = !scripted && On(profile.TransportStall);
                return new SwarmFeatures(
                    Scripted: scripted,
                    Cancellation: On(profile.Cancellation),
                    Faults: On(profile.Faults),
                    Owners: On(profile.Owners),
                    Headers: On(profile.Headers),
                    LargeBodies: On(profile.LargeBodies),
                    ManyPublishers: On(profile.ManyPublishers),
                    SmallQueue: On(profile.SmallQueue),
                    SmallThreshold: On(profile.SmallThreshold),
                    Noise: On(profile.Noise),
                    Holds: scripted && On(profile.Holds),
                    Dispose: dispose,
                    Reset: scripted && On(profile.Reset),
                    TransportStall: transportStall,
                    StallThroughDispose: dispose && On(profile.StallThroughDispose),
                    Methods: On(profile.Methods),
                    Pipelined: !scripted && On(profile.Pipelined) && !transportStall,
                    // Drawn last, so every other feature of a case is what it was before heartbeats existed.
                    Heartbeats: On(profile.Heartbeats)
                );
            });
    }

    /// <summary>Whole scenarios for <paramref name="profile"/>.</summary>
    public static Gen<Scenario> For(ScenarioProfile profile) =>
        from features in Features(profile)
        from frameMax in FrameMax
        from layout in features.Scripted || features.Pipelined
            ? Gen.Constant(ChannelLayout.OwnChannel)
            : Gen.Frequency(
                (3, Gen.Constant(ChannelLayout.OwnChannel)),
                (1, Gen.Constant(ChannelLayout.SharedChannel)),
                (1, Gen.Constant(ChannelLayout.Mixed))
            )
        from publisherCount in features.ManyPublishers ? Gen.Choose(5, 16) : Gen.Choose(1, 4)
        from publishers in Step(frameMax, features)
            .ListOf()
            .Select(l => l.Count == 0 ? [new CallStep(1)] : l)
            .Resize(features.Scripted ? 4 : 6)
            .ListOf(publisherCount)
        from seed in Gen.Choose(0, 1_000_000)
        from queue in features.SmallQueue ? Gen.Choose(1, 4) : Gen.Constant(WriterContext.DefaultQueueCapacity)
        from threshold in features.SmallThreshold ? Gen.Elements(512, 2048, 8192) : Gen.Constant(64 * 1024)
        let bytes = publishers.Sum(p => p.Sum(s => (long)s.BodyLength + s.HeaderBytes + 120))
        from faults in features.Faults && !features.TransportStall ? Faults(bytes) : Gen.Constant(FaultPlan.Empty)
        from scriptSeed in Gen.Choose(0, int.MaxValue)
        from closeAsCompletion in Gen.Elements(false, true)
        from channelBase in ChannelBase
        from channelsSpread in channelBase == 1 ? ChannelsSpread : Gen.Constant(false)
        from secondDisposal in SecondDisposals
        from largeBurst in !features.Scripted && !features.TransportStall && features.LargeBodies && publisherCount >= 3
            ? Gen.Elements(false, true)
            : Gen.Constant(false)
        from burstBodies in Gen.Choose(LargeBurstBody.Min, LargeBurstBody.Max).ListOf(6)
        from pipelinedCalls in features.Pipelined
            ? Gen.Frequency(
                    (7, Gen.Choose(PipelinedCalls.Min, PipelinedCalls.Max)),
                    (1, Gen.Choose(LongLivedCalls.Min, LongLivedCalls.Max))
                )
                .SelectMany(n => PipelinedStep(frameMax, features).ListOf(n))
                .Select(calls => (IReadOnlyList<CallStep>)[.. calls])
            : Gen.Constant<IReadOnlyList<CallStep>>([])
        from continuing in !features.Scripted && !features.TransportStall ? ContinuingCallers : Gen.Constant(false)
        from uniform in largeBurst ? Gen.Constant(false) : UniformCases
        from uniformLength in UniformBodyLength
        let scripted = features.Scripted
            ? publishers.Select(p => (IReadOnlyList<CallStep>)[.. p.Take(4)]).ToList()
            : null
        let withLargeBurst = largeBurst ? WithLargeBurst(publishers, burstBodies) : null
        let drawn = withLargeBurst ?? scripted ?? [.. publishers.Select(p => (IReadOnlyList<CallStep>)[.. p])]
        let chosen = uniform ? WithBodiesOfOneLength(drawn, uniformLength) : drawn
        // A pipelined publisher's bodies stay within one frame's worth, as PipelinedStep's do.
        let pipelinedChosen = uniform
            ? WithBodiesOfOneLength([pipelinedCalls], Math.Min(uniformLength, (frameMax == 0 ? 131072 : frameMax) - 7))[
                0
            ]
            : pipelinedCalls
        let callers = features.Pipelined ? [pipelinedChosen, .. chosen.Skip(1)] : chosen
        // Drawn last, so every other part of a case is what it was before cases ran on several connections.
        from connectionsDraw in Gen.Choose(0, 999)
        let connections = !features.TransportStall && connectionsDraw < profile.Connections * 1000
            ? 2 + connectionsDraw % 2
            : 1
        select new Scenario(
            frameMax,
            layout,
            features.Heartbeats
                ? HeartbeatSteps.Into(callers, new Random(unchecked(seed * 7919 + scriptSeed)), largeBurst)
                : callers,
            faults,
            seed,
            StallUntilQuiet: features.TransportStall
        )
        {
            Pipelined = features.Pipelined,
            QueueCapacity = largeBurst ? Math.Max(queue, 4) : queue,
            OutputThreshold = threshold,
            Noise = features.Noise,
            Script = features.Scripted
                ? ScriptGenerator.Build([.. scripted!.Select(p => p.Count)], features, new Random(scriptSeed))
                : null,
            StallThroughDispose = features.StallThroughDispose,
            CloseAsCompletion = closeAsCompletion,
            ChannelBase = channelBase,
            ChannelsSpread = channelsSpread,
            SecondDisposal = secondDisposal,
            Continuing = continuing,
            Connections = connections,
        };

    /// <summary>Whether every publish of a case carries a body of one length (<see cref="WithBodiesOfOneLength"/>): one
    /// case in eight, as a service that publishes one kind of message does. Lengths drawn one by one almost never fill
    /// a writer's buffer to the byte; bodies of one length do as soon as it wraps, which is where a ring of body copies
    /// that takes "head == tail" for empty after an exact fill goes wrong.</summary>
    public static Gen<bool> UniformCases { get; } = Gen.Frequency((7, Gen.Constant(false)), (1, Gen.Constant(true)));

    /// <summary>The body length of a case whose publishes all carry one (<see cref="UniformCases"/>): small mostly, up
    /// to 20,000 bytes (a pipelined publisher's, up to one frame's worth), so that dozens of them (a pipelined
    /// publisher's 33-320) wrap a writer's 64 KiB buffers without making the case heavy.</summary>
    public static Gen<int> UniformBodyLength { get; } =
        Gen.Frequency((1, Gen.Choose(1, 300)), (3, Gen.Choose(301, 20_000)));

    /// <summary><paramref name="publishers"/> with every publish's body <paramref name="length"/> bytes long; calls
    /// without content stay as they are.</summary>
    public static List<IReadOnlyList<CallStep>> WithBodiesOfOneLength(
        IReadOnlyList<IReadOnlyList<CallStep>> publishers,
        int length
    )
    {
        ArgumentNullException.ThrowIfNull(publishers);
        return
        [
            .. publishers.Select(p =>
                (IReadOnlyList<CallStep>)
                    [.. p.Select(step => step.MethodOnly ? step : step with { BodyLength = length })]
            ),
        ];
    }

    /// <summary>How many calls a pipelined publisher makes (<see cref="Scenario.Pipelined"/>): more than a 32-command
    /// batch, so that a writer meets a queue longer than its batch while their callers are still to await
    /// them.</summary>
    public static (int Min, int Max) PipelinedCalls { get; } = (33, 80);

    /// <summary>How many calls a pipelined publisher makes in one pipelined case in eight: more than 256, so one writer
    /// lives through more commands than a byte counts, and whatever it does every so many commands (trimming or
    /// rotating a buffer, renewing a batch, wrapping a counter) comes round. Without such cases a writer never sees
    /// more than about 100 calls.</summary>
    public static (int Min, int Max) LongLivedCalls { get; } = (257, 320);

    /// <summary>The body lengths of a large-burst case (<see cref="WithLargeBurst"/>): any three are more than 1 MiB
    /// together.</summary>
    public static (int Min, int Max) LargeBurstBody { get; } = (350 * 1024, 700 * 1024);

    /// <summary>A free-running case's publishers with the first two publishes of publishers 0 to 2 made large and
    /// uncancelled (<paramref name="lengths"/>, six of them): three publishers firing large bodies at once, each
    /// publishing again the moment its call completes, so a batching writer meets more than 1 MiB queued and a caller
    /// back with its next publish right after a batch. Scripted cases cannot do the second part (the harness settles
    /// the writer before each step). Half the free-running cases with large bodies and three or more publishers are
    /// such bursts: drawn by chance, a batch cut at 1 MiB comes in a few cases in a thousand.</summary>
    private static List<IReadOnlyList<CallStep>> WithLargeBurst(
        IReadOnlyList<IReadOnlyList<CallStep>> publishers,
        IReadOnlyList<int> lengths
    )
    {
        var result = publishers.ToList();
        for (int p = 0; p < 3; p++)
        {
            var steps = result[p].ToList();
            while (steps.Count < 2)
                steps.Add(new CallStep(0));
            for (int i = 0; i < 2; i++)
                steps[i] = steps[i] with
                {
                    BodyLength = lengths[2 * p + i],
                    Cancel = CancelKind.None,
                    CancelAfterFlushes = 1,
                    MethodOnly = false,
                    ConnectionLevel = false,
                    WithoutToken = false,
                };
            result[p] = steps;
        }
        return result;
    }

    /// <summary>The lowest channel number of a case: 1 mostly; 255 and 256 (a channel number's high byte becomes
    /// non-zero within or at the start of the case) and 2032 (the case's channels run up to 2047, the broker's
    /// channel_max, with 16 publishers).</summary>
    public static Gen<ushort> ChannelBase { get; } =
        Gen.Frequency(
            (12, Gen.Constant((ushort)1)),
            (1, Gen.Constant((ushort)255)),
            (1, Gen.Constant((ushort)256)),
            (1, Gen.Constant((ushort)2032))
        );

    /// <summary>Whether a case whose channels start at 1 spreads them 256 apart
    /// (<see cref="Scenarios.Scenario.ChannelsSpread"/>): in one such case in five, so that channels sharing their
    /// number's low byte publish in one case (consecutive channels never do): a writer that keys per-channel state by
    /// that byte alone mixes them up only then.</summary>
    public static Gen<bool> ChannelsSpread { get; } = Gen.Frequency((4, Gen.Constant(false)), (1, Gen.Constant(true)));

    /// <summary>Whether a free-running case has a continuing caller (<see cref="Scenarios.Scenario.Continuing"/>: one
    /// publisher makes each next call from the previous call's completion, inline, as an <c>await</c> in a loop does):
    /// one in four. Every other caller comes back through the harness's own task on the thread pool, so only such a
    /// caller makes a call from inside the writer's signalling, where a delayed-flush writer can lose its
    /// wake-up.</summary>
    public static Gen<bool> ContinuingCallers { get; } =
        Gen.Frequency((3, Gen.Constant(false)), (1, Gen.Constant(true)));

    /// <summary>How often a case disposes its writer twice: in one case in eight after the first disposal returned, in
    /// one in eight at the same time.</summary>
    public static Gen<SecondDisposal> SecondDisposals { get; } =
        Gen.Frequency(
            (6, Gen.Constant(SecondDisposal.None)),
            (1, Gen.Constant(SecondDisposal.AfterFirst)),
            (1, Gen.Constant(SecondDisposal.Concurrent))
        );

    /// <summary>The mixed scenarios (<see cref="ScenarioProfile.Mixed"/>).</summary>
    public static Gen<Scenario> Scenario { get; } = For(ScenarioProfile.Mixed);

    /// <summary>Scenarios for a whole client over TCP, the mixed ones (<see cref="ClientScenarioGenerators.Mixed"/>):
    /// confirms on or off, at most 4 publishers or a burst, no owners, methods or script, proxy faults, sometimes a
    /// stall, one in four of them with a blocked write.</summary>
    public static Gen<Scenario> ClientScenario => ClientScenarioGenerators.Mixed;

    /// <summary>Client scenarios biased towards <paramref name="invariant"/>
    /// (<see cref="ClientScenarioGenerators.For"/>): the order property's are confirmed and unstalled, with bodies of at
    /// most 32 KiB; every other property draws the mixed ones.</summary>
    public static Gen<Scenario> ClientScenarioFor(string invariant) => ClientScenarioGenerators.For(invariant);

    /// <summary><paramref name="profile"/>'s scenarios with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> ArbitraryFor(ScenarioProfile profile) =>
        Arb.From(For(profile), ScenarioShrinker.Shrink);

    /// <summary><see cref="ClientScenario"/> with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> ClientArbitrary => ClientScenarioGenerators.MixedArbitrary;

    /// <summary><see cref="ClientScenarioFor"/> with <see cref="ScenarioShrinker"/>: what the client-level property of
    /// <paramref name="invariant"/> draws.</summary>
    public static Arbitrary<Scenario> ClientArbitraryFor(string invariant) =>
        ClientScenarioGenerators.ArbitraryFor(invariant);

    /// <summary><see cref="Scenario"/> with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> Arbitrary { get; } = ArbitraryFor(ScenarioProfile.Mixed);
}
