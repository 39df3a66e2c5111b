using System.Diagnostics;
using AmqpConformance.SelfTest;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.SelfTest;

/// <summary>The harness's self-test: every deliberately broken writer must fail the conformance properties themselves (not a
/// bespoke test) within the default number of cases. Prints which property caught it and after how many cases.</summary>
[Trait("Category", "SelfTest")]
public sealed class BrokenWritersAreCaught(ITestOutputHelper output)
{
    public static TheoryData<string> BrokenWriters => [.. BrokenWriterModes.All.Select(f => f.Name)];

    [Theory]
    [MemberData(nameof(BrokenWriters))]
    public void Broken_writer_fails_a_conformance_property(string name)
    {
        var factory = BrokenWriterModes.FromName(name)!;
        var options = new PropertyRunOptions { MaxTest = PropertyRunOptions.DefaultCases, ShrinkBudget = TimeSpan.FromSeconds(10) };
        var stopwatch = Stopwatch.StartNew();
        int casesSpent = 0;
        foreach (string invariant in InvariantNames.All)
        {
            var outcome = ConformanceProperties.Check(factory, invariant, options);
            casesSpent += outcome.CasesRun;
            if (outcome.Holds)
            {
                output.WriteLine($"{name}: {invariant} holds over {outcome.CasesRun} cases");
                continue;
            }
            output.WriteLine($"CAUGHT {name} by {invariant} after {outcome.CasesRun} case(s) ({casesSpent} cases in all, {stopwatch.Elapsed.TotalSeconds:0.0} s)");
            output.WriteLine(outcome.Describe());
            Assert.NotNull(outcome.Counterexample);
            Assert.NotNull(outcome.Replay);
            Assert.InRange(outcome.CasesRun, 1, PropertyRunOptions.DefaultCases);
            return;
        }
        Assert.Fail($"{name} passed every conformance property over {PropertyRunOptions.DefaultCases} cases each: the harness missed a broken writer.");
    }
}
