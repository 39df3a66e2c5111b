using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests.Clients;

/// <summary>A blocked write at client level: the proxy's stall stops reading the client's socket, so a large publish's
/// socket write blocks part-way, and its cancellation "on a flush" is fired then. A client whose flush takes the
/// caller's token over a <c>PipeWriter</c> on the socket (RabbitMQ.Client PR #1912's inline writer, modelled by
/// <see cref="FlushWithCallerTokenWriter"/>) re-sends part of the segment with its next flush and tears a frame; the
/// harness's own inline writer, whose flush the caller cannot cancel, passes the same case.</summary>
public sealed class BlockedWriteTests
{
    private static readonly string[] TornFrameRules =
    [
        "bad-frame-end",
        "truncated-frame",
        "body-mismatch",
        "malformed-frame",
        "unknown-frame-type",
        "frame-too-large",
        "frame-exceeds-frame-max",
        "body-exceeds-declared",
        "body-exceeds-declared-size",
        "declared-size-mismatch",
        "partial-frame",
    ];

    /// <summary>One publisher: a 512 KiB publish cancelled on a flush (its write blocks after about 240 KB), then a small
    /// one, whose flush is the next after the cancelled one.</summary>
    private static readonly Scenario Blocked = new(
        4096,
        ChannelLayout.OwnChannel,
        [
            [new CallStep(512 * 1024, Cancel: CancelKind.OnFlush), new CallStep(100)],
        ],
        FaultPlan.Empty,
        StallUntilQuiet: true
    )
    {
        Confirms = false,
    };

    private static async Task<(RunResult Result, IReadOnlyList<string> Rules)> RunAsync(FrameWriterFactory writer)
    {
        await using var runner = await ClientLevelRunner.StartAsync();
        RunResult result = await runner.RunAsync(new HarnessClientAdapter(writer), Blocked);
        return (result, [.. result.CheckAll().SelectMany(v => v.Violations).Select(v => v.Rule).Distinct()]);
    }

    [Fact]
    public async Task A_flush_cancelled_while_the_socket_write_is_blocked_tears_a_frame()
    {
        var (result, rules) = await RunAsync(
            FrameWriterFactory.Create("flush-with-caller-token", c => new FlushWithCallerTokenWriter(c))
        );

        Assert.True(result.Events[RunEvent.CancelDuringFlush] > 0, "the cancellation was fired during the stall");
        Assert.True(rules.Intersect(TornFrameRules).Any(), $"expected a torn frame, found: {string.Join(", ", rules)}");
    }

    [Fact]
    public async Task A_writer_whose_flush_the_caller_cannot_cancel_passes_the_same_case()
    {
        var (result, rules) = await RunAsync(WriterModes.Inline);

        Assert.True(result.Events[RunEvent.CancelDuringFlush] > 0, "the cancellation was fired during the stall");
        Assert.Empty(rules);
    }
}
