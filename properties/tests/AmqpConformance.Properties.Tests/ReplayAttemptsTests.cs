using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Tests;

/// <summary>A replayed case is re-run until it fails again, up to <see cref="PropertyRunOptions.ReplayAttempts"/> times
/// and no longer than <see cref="PropertyRunOptions.ReplayBudget"/>: a case that holds is run that many times, never
/// more.</summary>
public sealed class ReplayAttemptsTests
{
    private static (PropertyOutcome Outcome, int Runs) ReplayHoldingCase(int attempts, TimeSpan budget)
    {
        int runs = 0;
        var counting = FrameWriterFactory.Create("counting-inline", context =>
        {
            Interlocked.Increment(ref runs);
            return WriterModes.Inline.CreateWriter(context);
        });
        var outcome = ConformanceProperties.Check(
            counting,
            InvariantNames.Order,
            new PropertyRunOptions
            {
                Replay = new ReplayToken(12345, 67891, 5),
                ReplayAttempts = attempts,
                ReplayBudget = budget,
            }
        );
        return (outcome, runs);
    }

    [Fact]
    public void A_replayed_case_that_holds_runs_every_attempt()
    {
        var (outcome, runs) = ReplayHoldingCase(4, TimeSpan.FromMinutes(5));
        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Equal(4, runs);
        Assert.Null(outcome.ReplayAttemptsNeeded);
    }

    [Fact]
    public void No_attempt_after_the_first_starts_once_the_budget_is_spent()
    {
        var (outcome, runs) = ReplayHoldingCase(100, TimeSpan.Zero);
        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Equal(1, runs);
    }
}
