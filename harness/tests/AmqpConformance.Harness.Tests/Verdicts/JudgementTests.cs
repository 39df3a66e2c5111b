using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

/// <summary>The one judging path: every invariant over one assembly of the wire, and a property's verdict that gathers
/// them.</summary>
public sealed class JudgementTests
{
    [Fact]
    public void A_judgement_has_one_verdict_per_invariant_and_a_property_verdict_gathers_all_their_violations()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Publish(1, 0, [1]); // call 0 twice on the wire: order/duplicate-publish
        b.Call(0, [1], 0, 1);
        b.Call(1, [2], 2, 3, index: 1); // never on the wire: order/lost-publish
        var judgement = Judgement.Of(b.Evidence());

        Assert.Equal(InvariantNames.All, judgement.Verdicts.Select(v => v.Invariant));
        Assert.Equal(judgement.Wire.Commands.Count, WireAssembly.From(judgement.Evidence).Commands.Count);
        var order = Assert.Single(judgement.Verdicts, v => v.Invariant == InvariantNames.Order);
        Assert.Contains(order.Violations, v => v.Rule == "duplicate-publish");
        Assert.Contains(order.Violations, v => v.Rule == "lost-publish");

        var combined = judgement.Combined(InvariantNames.Bodies);
        Assert.Equal(InvariantNames.Bodies, combined.Invariant);
        Assert.Equal(judgement.Verdicts.Sum(v => v.Violations.Count), combined.Violations.Count);
        Assert.Equal(
            InvariantCheckers.CheckAll(b.Evidence()).Select(v => v.Violations.Count),
            judgement.Verdicts.Select(v => v.Violations.Count)
        );
    }
}
