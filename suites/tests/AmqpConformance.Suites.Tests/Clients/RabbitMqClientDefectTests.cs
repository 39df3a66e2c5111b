using AmqpConformance.Harness.Faults;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Scenarios;
using AmqpConformanceTests;

namespace AmqpConformance.Suites.Tests.Clients;

/// <summary>
/// The deterministic replays of the RabbitMQ.Client defects that <see cref="RabbitMqClientConformance"/> accepts as known
/// deviations, run against the RabbitMQ.Client version this repository references. Each test states that the defect is still
/// there: when a client upgrade fixes one, its test fails, and the deviation (and its test) should go.
/// </summary>
/// <remarks>The third known defect, <c>ghost-after-cancel</c>, needs a cancellation to land between the write and the broker's
/// confirm, which no scenario can force from outside the client; the client-level suite counts its occurrences instead.</remarks>
[Trait("Client", "RabbitMQ.Client")]
public sealed class RabbitMqClientDefectTests : IAsyncLifetime
{
    private ClientLevelRunner? _runner;

    public async Task InitializeAsync() => _runner = await ClientLevelRunner.StartAsync();

    public async Task DisposeAsync()
    {
        if (_runner is not null) await _runner.DisposeAsync();
    }

    private async Task<string[]> RulesBrokenAsync(int frameMax, PublishStep step)
    {
        var scenario = new Scenario(frameMax, ChannelLayout.OwnChannel, [[step]], FaultPlan.Empty, Seed: 1);
        var result = await _runner!.RunAsync(new RabbitMqClientAdapter(), scenario);
        return [.. result.CheckAll().SelectMany(v => v.Violations).Select(v => v.Rule).Distinct()];
    }

    [Fact]
    public async Task An_empty_body_at_frame_max_0_is_followed_by_stray_bytes()
    {
        // frame_max=0 own [p0: 0]: 8 bytes of a body frame the client sized but never wrote go out after the content header.
        string[] rules = await RulesBrokenAsync(0, new PublishStep(0));
        Assert.NotEmpty(rules);
        Assert.Empty(await RulesBrokenAsync(0, new PublishStep(1)));   // a one-byte body is fine: the defect is the empty body
    }

    [Fact]
    public async Task A_headers_table_near_frame_max_makes_an_oversize_header_frame()
    {
        // frame_max=4097 own [p0: 0 h4034]: a content header frame larger than the negotiated frame_max.
        Assert.Contains("frame-exceeds-frame-max", await RulesBrokenAsync(4097, new PublishStep(0, HeaderBytes: 4034)));
    }
}
