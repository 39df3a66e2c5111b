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
        ["bad-frame-end"] = "With frame_max 0 (unlimited) and an empty body, RabbitMQ.Client 7.1.2 follows the content header with " +
            "8 zero bytes (a bogus frame of type 0, no frame-end octet); RabbitMQ closes the connection with 501 FRAME_ERROR. " +
            "Replay: frame_max=0 own [p0: 0].",
        ["unknown-frame-type"] = "The same 8 zero bytes read as a frame of type 0.",
        ["ghost-after-cancel"] = "With publisher confirmation tracking, cancelling BasicPublishAsync after the message was written " +
            "(while it awaits the confirm) throws OperationCanceledException although the broker received and routes the message.",
    };
}
