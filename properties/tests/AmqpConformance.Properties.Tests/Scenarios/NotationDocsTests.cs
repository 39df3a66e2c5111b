using System.Runtime.CompilerServices;
using System.Text.RegularExpressions;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Scenarios;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Tests.Scenarios;

/// <summary>Every piece of notation a failure report's counterexample line can hold is explained in docs/invariants.md
/// ("Reading a counterexample"), which the report names: a user meeting <c>cancel:flush2</c> or <c>260@0+63</c> finds
/// it there.</summary>
public sealed partial class NotationDocsTests
{
    [Fact]
    public void Every_notation_in_generated_counterexamples_is_explained_in_the_docs()
    {
        string section = NotationSection();
        var scenarios = InvariantNames
            .All.SelectMany(i => ScenarioGenerators.For(ScenarioProfile.For(i)).Sample(150, 60))
            .Concat(ScenarioGenerators.ClientScenario.Sample(150, 30));
        var missing = new SortedSet<string>(StringComparer.Ordinal);
        int tokens = 0;
        foreach (var scenario in scenarios)
        {
            string text = scenario.ToString();
            text = text[..text.LastIndexOf(" faults: ", StringComparison.Ordinal)]; // the fault plan is JSON, explained by its keys
            foreach (string token in text.Split([' ', '[', ']', '|', ','], StringSplitOptions.RemoveEmptyEntries))
            {
                tokens++;
                if (DocumentedAs(token) is { } documented && !section.Contains(documented, StringComparison.Ordinal))
                    missing.Add($"{token} (as {documented})");
            }
        }
        Assert.True(tokens > 10_000, $"only {tokens} tokens looked at");
        Assert.True(
            missing.Count == 0,
            "Not explained in docs/invariants.md, \"Reading a counterexample\": " + string.Join(", ", missing)
        );
    }

    [Fact]
    public void A_failure_report_names_where_its_notation_is_explained()
    {
        var outcome = TestOutcomes.OneCallFailure(verdict: null);
        Assert.Contains(PropertyOutcome.NotationReference, outcome.Describe(), StringComparison.Ordinal);
        Assert.Contains("\"Reading a counterexample\"", PropertyOutcome.NotationReference, StringComparison.Ordinal);
        Assert.Contains("### Reading a counterexample", File.ReadAllText(InvariantsDoc()), StringComparison.Ordinal);
    }

    /// <summary>How the docs write a token's notation (digits as the letter the table uses), or null for a token that
    /// needs none (a publisher's label, a bare body length).</summary>
    private static string? DocumentedAs(string token)
    {
        if (PublisherLabel().IsMatch(token) || Digits().IsMatch(token))
            return null;
        if (token.Contains('@', StringComparison.Ordinal))
            return "`@a+b`";
        string shape = AnyNumber().Replace(token, "N");
        return shape switch
        {
            "chN" => "`method ch0`",
            _ when shape.StartsWith("dispose-race-call:pN", StringComparison.Ordinal) => "`dispose-race-call:pN`",
            _ => "`" + shape + "`",
        };
    }

    private static string NotationSection()
    {
        string doc = File.ReadAllText(InvariantsDoc());
        int start = doc.IndexOf("### Reading a counterexample", StringComparison.Ordinal);
        Assert.True(start >= 0, "no \"Reading a counterexample\" section in docs/invariants.md");
        int end = doc.IndexOf("\n## ", start, StringComparison.Ordinal);
        return doc[start..(end < 0 ? doc.Length : end)];
    }

    private static string InvariantsDoc([CallerFilePath] string here = "") =>
        Path.GetFullPath(Path.Combine(Path.GetDirectoryName(here)!, "..", "..", "..", "..", "docs", "invariants.md"));

    [GeneratedRegex(@"^p\d+:$")]
    private static partial Regex PublisherLabel();

    [GeneratedRegex(@"^\d+$")]
    private static partial Regex Digits();

    [GeneratedRegex(@"\d+")]
    private static partial Regex AnyNumber();
}
