using AmqpConformance.Properties;
using AmqpConformance.Properties.Clients;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.Clients;

/// <summary>The client-level suite on RabbitMQ.Client 7.1.2 through the embedded fault proxy into the fake broker.</summary>
/// <remarks>The known deviations below are real findings of this suite (replays in the README section "Conformance suites and
/// properties"); they are accepted and counted here so that any other violation still fails.</remarks>
[Trait("Client", "RabbitMQ.Client")]
public sealed class RabbitMqClientConformance(ITestOutputHelper output) : ClientConformanceSuite(output)
{
    protected override ClientAdapter Client { get; } = new RabbitMqClientAdapter();

    protected override IReadOnlyDictionary<string, string> KnownDeviations { get; } = new Dictionary<string, string>
    {
        ["frame-exceeds-frame-max"] = "RabbitMQ.Client 7.1.2 sends a content header frame larger than the negotiated frame_max " +
            "(a headers table near the limit) instead of refusing the publish; RabbitMQ closes the connection with 501 FRAME_ERROR.",
        ["frame-too-large"] = "The fake broker's finding for the same oversize header frame.",
        ["ghost-after-cancel"] = "With publisher confirmation tracking, cancelling BasicPublishAsync after the message was written " +
            "(while it awaits the confirm) throws OperationCanceledException although the broker received and routes the message.",
    };

    protected override IReadOnlyList<ScenarioDeviation> KnownScenarioDeviations { get; } =
    [
        new("stray-bytes-after-empty-body",
            "With frame_max 0 (unlimited) and an empty body, RabbitMQ.Client 7.1.2 sizes its buffer for one body frame it never " +
            "writes (Framing.GetBodyFrameCount returns 1 for unlimited frame_max even for length 0) and sends the 8 unwritten bytes " +
            "of the rented array after the content header. Their contents are stale, so they parse as a type-0 frame, a body " +
            "frame, a bad frame end...; RabbitMQ closes the connection with 501 FRAME_ERROR. Replay: frame_max=0 own [p0: 0].",
            s => s.FrameMax == 0 && s.Publishers.Any(steps => steps.Any(step => step.BodyLength == 0))),
    ];
}
