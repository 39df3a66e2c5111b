using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The soak's growth rule on made-up samples, and a short soak of a correct writer and of the leaky-budget
/// zoo writer.</summary>
public sealed class SoakTests
{
    private static List<SoakSample> Samples(params int[] rentals) =>
        [.. rentals.Select((r, i) => new SoakSample(i + 1, TimeSpan.FromSeconds(i), i * 256L, r, r * 4096L, 0, 1))];

    [Fact]
    public void A_resource_that_only_fluctuates_or_warms_up_does_not_grow()
    {
        Assert.Empty(SoakJudge.Growth(Samples(0, 9, 3, 0, 5, 9, 0, 2, 9)));
        Assert.Empty(SoakJudge.Growth(Samples(4, 12, 12, 12, 12, 12, 12, 12, 12)));
        Assert.Empty(SoakJudge.Growth(Samples(0, 1, 2, 3, 4))); // too few samples to judge
    }

    [Fact]
    public void A_resource_that_keeps_growing_while_idle_is_named_with_its_samples()
    {
        var found = SoakJudge.Growth(Samples(0, 5, 10, 15, 20, 25, 30, 35, 40));
        var rentals = Assert.Single(found, v => v.Message.StartsWith("outstanding rentals", StringComparison.Ordinal));
        Assert.Equal("soak/resource-growth", rentals.Rule);
        Assert.Contains("r9=40", rentals.Message, StringComparison.Ordinal);
        Assert.Contains(found, v => v.Message.StartsWith("bytes held", StringComparison.Ordinal));
    }

    [Fact]
    public void A_long_soak_lists_a_dozen_of_its_samples_the_first_and_last_among_them()
    {
        var found = SoakJudge.Growth(Samples([.. Enumerable.Range(0, 3600)]));
        var rentals = Assert.Single(found, v => v.Message.StartsWith("outstanding rentals", StringComparison.Ordinal));
        Assert.Equal(SoakJudge.SamplesListed, rentals.Message.Count(c => c == '='));
        Assert.Contains("samples: r1=0, ", rentals.Message, StringComparison.Ordinal);
        Assert.EndsWith("r3600=3599", rentals.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_correct_writer_holds_over_a_short_soak()
    {
        var result = await SoakRunner.RunAsync(WriterModes.Coalescing, SoakOptions.For(TimeSpan.FromSeconds(2)));
        Assert.True(result.Holds, string.Join("\n", result.Violations));
        Assert.True(result.Calls > 1000, $"{result.Calls} calls");
    }

    [Fact]
    public async Task The_leaky_budget_stops_completing_once_its_budget_is_spent()
    {
        var leaky = SoakZoo.FromName("LeakyInFlightBudget")!.Factory;
        var options = SoakOptions.For(TimeSpan.FromMinutes(2)) with { RoundTimeout = TimeSpan.FromSeconds(2) };
        var result = await SoakRunner.RunAsync(leaky, options);
        var violation = Assert.Single(result.Violations);
        Assert.Equal("soak/stopped-completing", violation.Rule);
        Assert.InRange(result.Calls, 30_000, 33_000);
    }
}
