using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

internal static class CheckerTestExtensions
{
    public static Verdict Run(this IInvariantChecker checker, ConformanceEvidence evidence) =>
        checker.Check(evidence, WireAssembly.From(evidence));

    public static Violation Single(this Verdict verdict, string rule)
    {
        Assert.False(verdict.Holds, "expected a violation");
        return Assert.Single(verdict.Violations, v => v.Rule == rule);
    }
}
