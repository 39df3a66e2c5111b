using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests;

/// <summary>With one seed, the shards of a run generate the unsharded run's cases and each runs its own slice: together
/// exactly those cases, each once.</summary>
public sealed class CaseShardTests
{
    private static List<string> CasesRun(ulong seed, CaseShard? shard)
    {
        var seen = new List<string>();
        var outcome = ConformanceProperties.Check(
            "Background",
            "order",
            new PropertyRunOptions
            {
                MaxTest = 24,
                Seed = seed,
                Shard = shard,
            },
            scenario =>
            {
                seen.Add(scenario.ToString());
                return WriterLevelRunner.RunAsync(WriterModes.Background, scenario).GetAwaiter().GetResult();
            }
        );
        Assert.True(outcome.Holds, outcome.ToString());
        Assert.Equal(seen.Count, outcome.CasesRun);
        return seen;
    }

    [Fact]
    public void Three_shards_of_a_seeded_run_run_exactly_its_cases_each_once()
    {
        var whole = CasesRun(77, null);
        var shards = Enumerable.Range(1, 3).Select(k => CasesRun(77, new CaseShard(k, 3))).ToList();

        Assert.Equal(24, whole.Count);
        Assert.Equal(whole.Count, shards.Sum(s => s.Count));
        for (int k = 0; k < 3; k++)
            Assert.Equal(whole.Where((_, i) => i % 3 == k), shards[k]);
        // Another seed draws other cases.
        Assert.NotEqual(whole, CasesRun(78, null));
    }

    [Theory]
    [InlineData("2/4", 2, 4)]
    [InlineData(" 1/1 ", 1, 1)]
    public void A_shard_reads_as_K_of_N(string text, int number, int count) =>
        Assert.Equal(new CaseShard(number, count), CaseShard.Parse(text));

    [Theory]
    [InlineData("0/4")]
    [InlineData("5/4")]
    [InlineData("2")]
    [InlineData("a/b")]
    [InlineData("-1/2")]
    public void Anything_else_is_refused(string text) => Assert.Throws<FormatException>(() => CaseShard.Parse(text));

    [Fact]
    public void A_shard_from_the_environment_needs_a_seed()
    {
        // Read through the same parser the suites use; the variables are restored afterwards.
        string? shard = Environment.GetEnvironmentVariable(CaseShard.EnvironmentVariable),
            seed = Environment.GetEnvironmentVariable(PropertyRunOptions.SeedEnvironmentVariable);
        try
        {
            Environment.SetEnvironmentVariable(CaseShard.EnvironmentVariable, "2/3");
            Environment.SetEnvironmentVariable(PropertyRunOptions.SeedEnvironmentVariable, null);
            Assert.Contains(
                PropertyRunOptions.SeedEnvironmentVariable,
                Assert.Throws<FormatException>(() => PropertyRunOptions.FromEnvironment()).Message,
                StringComparison.Ordinal
            );
            Environment.SetEnvironmentVariable(PropertyRunOptions.SeedEnvironmentVariable, "12345");
            var options = PropertyRunOptions.FromEnvironment();
            Assert.Equal(new CaseShard(2, 3), options.Shard);
            Assert.Equal(12345UL, options.Seed);
        }
        finally
        {
            Environment.SetEnvironmentVariable(CaseShard.EnvironmentVariable, shard);
            Environment.SetEnvironmentVariable(PropertyRunOptions.SeedEnvironmentVariable, seed);
        }
    }
}
