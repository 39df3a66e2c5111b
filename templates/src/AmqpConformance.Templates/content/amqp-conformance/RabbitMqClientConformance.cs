using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Suites;
using Xunit;
#if (XunitV3)
#else
using Xunit.Abstractions;
#endif

namespace AmqpConformanceTests;

/// <summary>The client-level suite on RabbitMQ.Client 7.x, through the embedded fault proxy into the fake broker:
/// <c>dotnet test --filter Client=RabbitMQ.Client</c>.</summary>
/// <remarks>The known deviations below are real defects of RabbitMQ.Client (up to 7.2.2 at least; see AmqpConformance's
/// docs/known-client-defects.md); they are accepted only in the scenarios and rules of their symptom, so that any other
/// violation still fails, and KnownDeviationsStillReproduce replays each one's pinned scenario. Remove a deviation once
/// the client version you reference fixes it. Shipped as source in the amqp-conformance template; the AmqpConformance
/// repository's own client suite compiles this very file.</remarks>
[Trait("Client", "RabbitMQ.Client")]
public sealed class RabbitMqClientConformance(ITestOutputHelper output) : ClientConformanceSuite(output)
{
    protected override ClientAdapter Client { get; } = new RabbitMqClientAdapter();

    /// <summary>What 8 stale bytes after a content header can parse as: any framing, shape or broker rule, since their
    /// contents are whatever the rented array held (a frame type, a size, an end octet...); and when they parse as the
    /// header of a frame whose payload never ends, the broker swallows every later frame, so later publishes are lost
    /// and confirms never come.</summary>
    private static readonly string[] StrayByteSymptoms =
    [
        // wire-format, command-shape, no-interleaving
        "bad-frame-end",
        "unknown-frame-type",
        "malformed-frame",
        "frame-too-large",
        "frame-exceeds-frame-max",
        "orphan-body",
        "orphan-header",
        "body-exceeds-declared",
        "body-too-long",
        "body-incomplete",
        "declared-size-mismatch",
        "missing-header",
        "empty-body-frame",
        "body-frame-not-full",
        "frames-not-contiguous",
        "heartbeat-inside-command",
        "channel-content-interleaved",
        "header-not-basic",
        "partial-frame",
        "partial-command",
        // the broker's names for the same
        "body-without-header",
        "content-without-method",
        "header-during-body",
        "method-during-content",
        "undecodable-method",
        "undecodable-content-header",
        "body-exceeds-declared-size",
        "truncated-frame",
        "content-on-channel-zero",
        "channel-not-open",
        // later frames swallowed by a frame that never ends
        "lost-publish",
        "call-hung",
    ];

    protected override IReadOnlyList<KnownDeviation> KnownDeviations => Deviations;

    /// <summary>RabbitMQ.Client 7.x's release line: the deviations below were found in 7.2.2 and are accepted for 7.x
    /// builds only, so a later major version that shows the same symptom is reported.</summary>
    private static bool IsVersion7(ClientAdapter client) =>
        client.Version?.StartsWith("7.", StringComparison.Ordinal) == true;

    /// <summary>Whether <paramref name="call"/> ended in a cancellation that RabbitMQ.Client threw while it waited for
    /// the broker's confirm, after the message was written (<c>PublisherConfirmationInfo.MaybeWaitForConfirmationAsync</c>);
    /// a cancellation thrown anywhere else (in a flush of the inline writer, say) is not this defect.</summary>
    private static bool CancelledInConfirmWait(CallRecord call) =>
        call.Exception is OperationCanceledException cancelled
        && cancelled.StackTrace?.Contains("MaybeWaitForConfirmationAsync", StringComparison.Ordinal) == true;

    /// <summary>The defects of RabbitMQ.Client accepted in this suite, each scoped to its cause.</summary>
    public static IReadOnlyList<KnownDeviation> Deviations { get; } =
    [
        new(
            "stray-bytes-after-empty-body",
            "With frame_max 0 (unlimited) and an empty body, RabbitMQ.Client sizes its buffer for one body frame it never writes "
                + "(Framing.GetBodyFrameCount returns 1 for unlimited frame_max even for length 0) and sends the 8 unwritten bytes of the "
                + "rented array after the content header. Their contents are stale, so they parse as whatever frame they form; RabbitMQ "
                + "closes the connection with 501 FRAME_ERROR.",
            StrayByteSymptoms,
            s => s.FrameMax == 0 && s.Publishers.Any(steps => steps.Any(step => step.BodyLength == 0)),
            Reproduction: new Scenario(
                0,
                ChannelLayout.OwnChannel,
                [
                    [new CallStep(0)],
                ],
                FaultPlan.Empty
            )
        )
        {
            ClientScope = IsVersion7,
        },
        new(
            "header-frame-over-frame-max",
            "RabbitMQ.Client sends a content header frame larger than the negotiated frame_max (a headers table near the limit) "
                + "instead of refusing the publish; RabbitMQ closes the connection with 501 FRAME_ERROR.",
            ["frame-exceeds-frame-max", "frame-too-large"],
            s => s.Publishers.Any(steps => steps.Any(step => step.HeaderBytes > 0)),
            Reproduction: new Scenario(
                4097,
                ChannelLayout.OwnChannel,
                [
                    [new CallStep(0, HeaderBytes: 4034)],
                ],
                FaultPlan.Empty
            )
        )
        {
            ClientScope = IsVersion7,
        },
        new(
            "ghost-publish-after-cancel",
            "With publisher confirmation tracking, cancelling BasicPublishAsync after the message was written (while it awaits the "
                + "confirm) throws OperationCanceledException although the broker received and routes the message. Accepted only "
                + "for a cancellation thrown in the confirm wait: one thrown in a flush whose frames then go out (PR #1912's inline "
                + "writer) is another defect, and is reported.",
            ["ghost-after-cancel"],
            s =>
                s.Confirms
                && s.Publishers.Any(steps =>
                    steps.Any(step => step.Cancel is CancelKind.Racing or CancelKind.OnFlush or CancelKind.OnWrite)
                ),
            Reproduction: new Scenario(
                4096,
                ChannelLayout.OwnChannel,
                [
                    [.. Enumerable.Repeat(new CallStep(0, Cancel: CancelKind.Racing), 6)],
                ],
                FaultPlan.Empty
            )
        )
        {
            ClientScope = IsVersion7,
            CallScope = CancelledInConfirmWait,
        },
    ];
}
