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
        // A replay that did not reproduce says so, rather than "holds", and how many times it tried.
        Assert.Equal(4, outcome.ReplayAttemptsWithoutFailure);
        Assert.Contains(
            "the replayed case did not fail again in 4 attempt(s)",
            outcome.Describe(),
            StringComparison.Ordinal
        );
        Assert.Contains("its failure depends on timing", outcome.Describe(), StringComparison.Ordinal);
        Assert.DoesNotContain("holds over", outcome.Describe(), StringComparison.Ordinal);
    }

    [Fact]
    public void No_attempt_after_the_first_starts_once_the_budget_is_spent()
    {
        var (outcome, runs) = ReplayHoldingCase(100, TimeSpan.Zero);
        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Equal(1, runs);
        Assert.Equal(1, outcome.ReplayAttemptsWithoutFailure);
    }

    [Fact]
    public void A_check_that_is_not_a_replay_has_no_replay_attempts_and_holds_as_always()
    {
        var outcome = ConformanceProperties.Check(
            WriterModes.Inline,
            InvariantNames.Order,
            new PropertyRunOptions { MaxTest = 2 }
        );
        Assert.True(outcome.Holds, outcome.Describe());
        Assert.Null(outcome.ReplayAttemptsWithoutFailure);
        Assert.Contains("holds over 2 cases", outcome.Describe(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_replay_that_failed_again_says_on_which_attempt()
    {
        var failure = TestOutcomes.OneCallFailure(
            new Verdict(
                InvariantNames.Order,
                [new Violation(InvariantNames.Order, "lost-publish", "Call 0 ...", [], [0])]
            )
        );
        Assert.DoesNotContain("This run was a replay", failure.Describe(), StringComparison.Ordinal);
        Assert.Contains(
            "This run was a replay: the case failed again on its first attempt.",
            (failure with { ReplayAttemptsNeeded = 1 }).Describe(),
            StringComparison.Ordinal
        );
        Assert.Contains(
            "This run was a replay: the case failed again on attempt 7 (it depends on timing;",
            (failure with { ReplayAttemptsNeeded = 7 }).Describe(),
            StringComparison.Ordinal
        );
    }
}
