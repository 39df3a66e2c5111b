using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Generators;

/// <summary>The scenarios of the client-level properties (a whole client over TCP, through the fault proxy), public as
/// <see cref="ScenarioGenerators.ClientScenario"/> and <see cref="ScenarioGenerators.ClientScenarioFor"/>. A class of
/// their own, initialized on first use after <see cref="ScenarioGenerators"/>, whose generators they build on.</summary>
internal static class ClientScenarioGenerators
{
    /// <summary>The profile of the mixed client scenarios (<see cref="Mixed"/>).</summary>
    private static ScenarioProfile Profile { get; } =
        ScenarioProfile.Mixed with
        {
            Name = "client",
            Scripted = 0,
            TransportStall = 0.3,
            Owners = 0,
            Noise = 0,
            LargeBodies = 0.2,
            Methods = 0,
            Pipelined = 0,
            Heartbeats = 0,
            Connections = 0,
        };

    /// <summary>Scenarios for a whole client over TCP (the mixed ones, <see cref="For"/> of no particular invariant): confirms on or off; at most 4 publishers, or, with confirms off, one of them a burst of 150-300 small
    /// publishes (more than a client's internal write queue holds while the proxy stalls); no body owners (a client API
    /// has none), no calls without content (the client adapters publish only), no script (the harness cannot hold a
    /// client's flushes); faults that a TCP proxy can apply; sometimes a stall (the proxy forwards and reads nothing until
    /// the client stops making progress, then lets go), one in four of them with a blocked write
    /// (<see cref="BlockedWrites"/>).</summary>
    public static Gen<Scenario> Mixed { get; } = Build(Profile, confirmsAlways: false);

    /// <summary>Client scenarios (<see cref="Mixed"/>) biased towards <paramref name="invariant"/>, as the
    /// writer-level properties are (<see cref="ScenarioProfile.For"/>): the order property's have confirms always on
    /// (its confirm-tag rule judges only then), more cancellations and publishers, no stall and bodies of at most 32 KiB, so
    /// that a publish whose cancelled write still went out is followed by more publishes on its channel over a
    /// connection that stays open (a torn frame ends the connection first); every other property draws the mixed
    /// ones.</summary>
    public static Gen<Scenario> For(string invariant) => invariant == InvariantNames.Order ? Order : Mixed;

    private static Gen<Scenario> Order { get; } =
        from s in Build(
            Profile with
            {
                Name = "client-" + InvariantNames.Order,
                TransportStall = 0,
                LargeBodies = 0,
                Cancellation = 0.7,
                ManyPublishers = 0.6,
            },
            confirmsAlways: true
        )
        select s with
        {
            Publishers =
            [
                .. s.Publishers.Select(p =>
                    (IReadOnlyList<CallStep>)
                        [.. p.Select(c => c with { BodyLength = Math.Min(c.BodyLength, OrderBodyMax) })]
                ),
            ],
        };

    /// <summary>The largest body of the client order property's cases: small enough that a publish rarely fills the
    /// proxy's buffers (16 KiB of receive buffer at Ethernet's segment size) and tears a frame when cancelled, which
    /// ends the connection before later publishes show their tags; large enough that a publish's flush takes long enough
    /// for a racing cancellation to land in it. Measured against PR #1912's inline writer (order property alone, six
    /// runs per cap; whole client suite, two to four): with 64 KiB a torn frame came first in 5 of 6; with 8 KiB the
    /// tag mismatch showed in 5 of 6 alone but in 2 of 5 suite runs; with 32 KiB in 5 of 6 alone and 4 of 4 in the
    /// suite.</summary>
    private const int OrderBodyMax = 32 * 1024;

    private static Gen<Scenario> Build(ScenarioProfile profile, bool confirmsAlways) =>
        from s in ScenarioGenerators.For(profile)
        from confirms in confirmsAlways ? Gen.Constant(true) : Gen.Elements(true, false)
        from burst in Gen.Frequency((3, Gen.Constant(false)), (1, Gen.Constant(true)))
        from burstSize in Gen.Choose(150, 300)
        from burstBodies in Gen.Choose(0, 300).ListOf(burstSize)
        from blocked in Gen.Frequency((3, Gen.Constant(false)), (1, Gen.Constant(true)))
        from blockedBody in Gen.Choose(BlockedWrites.Body.Min, BlockedWrites.Body.Max)
        let publishers = burst && !confirms
            ?
            [
                [.. burstBodies.Select(b => new CallStep(b))],
                .. s.Publishers.Take(3),
            ]
            : (List<IReadOnlyList<CallStep>>)[.. s.Publishers.Take(4)]
        select s with
        {
            Confirms = confirms,
            Publishers = s.StallUntilQuiet && blocked ? BlockedWrites.Into(publishers, blockedBody) : publishers,
            Faults = s.Faults with
            {
                Faults =
                [
                    .. s.Faults.Faults.Where(f => f is ResetPeerFault or LimitDataFault or LatencyFault or SlicerFault),
                ],
            },
            Continuing = false, // a client's publishers are the adapter's, which the harness does not drive call by call
        };

    /// <summary><see cref="Mixed"/> with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> MixedArbitrary { get; } = Arb.From(Mixed, ScenarioShrinker.Shrink);

    /// <summary><see cref="For"/> with <see cref="ScenarioShrinker"/>.</summary>
    public static Arbitrary<Scenario> ArbitraryFor(string invariant) =>
        invariant == InvariantNames.Order ? OrderArbitrary : MixedArbitrary;

    private static Arbitrary<Scenario> OrderArbitrary { get; } = Arb.From(Order, ScenarioShrinker.Shrink);
}
