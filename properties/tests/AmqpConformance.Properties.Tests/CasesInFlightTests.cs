using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests;

/// <summary>What <see cref="CasesInFlight"/> says about a running case is what a crash report prints, so it must be
/// exact: the scenario that is running, and a replay token that generates that scenario again (the one FsCheck itself
/// reports when the case fails). The token is worked out from FsCheck's runner (<see cref="CaseReplayTokens"/>), so
/// these tests pin it to the FsCheck in use: first case, a fractional size step, a case deep into the run.</summary>
public sealed class CasesInFlightTests
{
    [Theory]
    [InlineData(100, 1)]
    [InlineData(7, 7)]
    [InlineData(100, 37)]
    public void A_running_case_is_noted_with_its_scenario_and_the_token_FsCheck_reports_when_it_fails(
        int maxTest,
        int failAt
    )
    {
        string subject = "in-flight-" + Guid.NewGuid().ToString("N");
        int n = 0;
        CaseInFlight? seen = null;
        Scenario? failing = null;
        var outcome = ConformanceProperties.Check(
            subject,
            InvariantNames.Order,
            new PropertyRunOptions { MaxTest = maxTest, ShrinkBudget = TimeSpan.Zero },
            scenario =>
            {
                if (++n != failAt)
                    return WriterLevelRunner.RunAsync(WriterModes.Inline, scenario).GetAwaiter().GetResult();
                seen = CasesInFlight.Snapshot().Single(p => p.Subject == subject && !p.Ended).Current;
                failing = scenario;
                throw new InvalidOperationException("this case fails");
            }
        );

        Assert.False(outcome.Holds);
        Assert.NotNull(seen);
        Assert.Equal(CaseStage.Generated, seen.Stage);
        Assert.Equal((failAt, maxTest), (seen.Number, seen.Of));
        Assert.Same(failing, seen.Scenario);
        Assert.Equal(outcome.Replay, seen.Replay);
        Assert.All(CasesInFlight.Snapshot().Where(p => p.Subject == subject), p => Assert.True(p.Ended));

        Scenario? replayed = null;
        string replaySubject = subject + "-replay";
        CaseInFlight? seenReplaying = null;
        ConformanceProperties.Check(
            replaySubject,
            InvariantNames.Order,
            new PropertyRunOptions { Replay = seen.Replay, ShrinkBudget = TimeSpan.Zero },
            scenario =>
            {
                if (replayed is not null)
                    return WriterLevelRunner.RunAsync(WriterModes.Inline, scenario).GetAwaiter().GetResult();
                seenReplaying = CasesInFlight.Snapshot().Single(p => p.Subject == replaySubject && !p.Ended).Current;
                replayed = scenario;
                throw new InvalidOperationException("fails again");
            }
        );
        Assert.Equal(failing!.ToString(), replayed?.ToString());
        Assert.Equal((CaseStage.Replaying, 1), (seenReplaying!.Stage, seenReplaying.Number));
        Assert.Equal(seen.Replay, seenReplaying.Replay);
    }

    [Fact]
    public void A_crash_report_names_the_writer_the_property_the_scenario_and_the_replay_line_with_its_hint()
    {
        string subject = "report-" + Guid.NewGuid().ToString("N");
        string? report = null;
        var crash = new InvalidOperationException("completed twice");
        ConformanceProperties.Check(
            subject,
            InvariantNames.Lifecycle,
            new PropertyRunOptions
            {
                MaxTest = 1,
                ShrinkBudget = TimeSpan.Zero,
                ReplayHint = token => $"hint for {token}",
            },
            scenario =>
            {
                if (report is not null)
                    return WriterLevelRunner.RunAsync(WriterModes.Inline, scenario).GetAwaiter().GetResult();
                report = CasesInFlight.DescribeCrash(crash);
                throw new InvalidOperationException("stop here");
            }
        );

        Assert.NotNull(report);
        Assert.Contains("THE WRITER UNDER TEST CRASHED THE PROCESS", report, StringComparison.Ordinal);
        Assert.Contains("System.InvalidOperationException: completed twice", report, StringComparison.Ordinal);
        Assert.Contains($"Writer: {subject}", report, StringComparison.Ordinal);
        Assert.Contains("Property: \"lifecycle\"", report, StringComparison.Ordinal);
        Assert.Contains("In flight: case 1 of 1", report, StringComparison.Ordinal);
        Assert.Contains("Scenario: frame_max=", report, StringComparison.Ordinal);
        Assert.Matches(@"Replay: AMQP_CONFORMANCE_REPLAY=(\d+,\d+,\d+)  \(hint for \1\)", report);
    }
}
