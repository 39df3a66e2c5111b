using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Validation;

/// <summary>Arguments RabbitMQ 3.x refuses with a connection.close (codes and class/method ids checked against 3.10),
/// and the positive side of each: the supported value is answered and the connection carries on.</summary>
public sealed class UnsupportedArgumentTests : IAsyncLifetime
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);
    private FakeAmqpBroker _broker = null!;

    public async Task InitializeAsync() =>
        _broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });

    public async Task DisposeAsync() => await _broker.DisposeAsync();

    public static TheoryData<string, IAmqpMethod, ushort, ushort, ushort, string> Refused =>
        new()
        {
            {
                "channel.flow active=false",
                new ChannelFlow { Active = false },
                540,
                20,
                20,
                "flow-inactive-not-implemented"
            },
            {
                "basic.qos prefetch-size",
                new BasicQos { PrefetchSize = 1000 },
                540,
                60,
                10,
                "prefetch-size-not-implemented"
            },
            {
                "basic.recover requeue=false",
                new BasicRecover { Requeue = false },
                540,
                60,
                110,
                "recover-without-requeue"
            },
            { "channel.close-ok out of the blue", new ChannelCloseOk(), 503, 20, 41, "unexpected-channel-close-ok" },
        };

    [Theory]
    [MemberData(nameof(Refused))]
    public async Task Refused_like_RabbitMQ(
        string what,
        IAmqpMethod method,
        ushort code,
        ushort classId,
        ushort methodId,
        string rule
    )
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectOpenAsync(_broker.Endpoint, cts.Token);
        await client.SendMethodAsync(1, method, cts.Token);
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        Assert.True(
            (code, classId, methodId) == (close.ReplyCode, close.FailingClassId, close.FailingMethodId),
            $"{what}: {close}"
        );
        var connection = _broker.Connections[^1];
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Single(connection.Findings, f => f.Rule == rule && f.ClosedConnection);
        await BrokerProbe.AssertServesAsync(_broker, cts.Token);
    }

    [Fact]
    public async Task Supported_values_are_answered()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectOpenAsync(_broker.Endpoint, cts.Token);
        await client.SendMethodAsync(1, new ChannelFlow { Active = true }, cts.Token);
        Assert.True((await client.ExpectAsync<ChannelFlowOk>(cts.Token)).Active);
        await client.SendMethodAsync(1, new BasicQos { PrefetchCount = 3, Global = true }, cts.Token);
        await client.ExpectAsync<BasicQosOk>(cts.Token);
        await client.SendMethodAsync(1, new BasicRecover { Requeue = true }, cts.Token);
        await client.ExpectAsync<BasicRecoverOk>(cts.Token);
        await client.CloseAsync(cts.Token);
        Assert.Empty(_broker.Connections[^1].Findings);
    }
}
