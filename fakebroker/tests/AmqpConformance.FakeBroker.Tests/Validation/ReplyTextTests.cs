using System.Text;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Validation;

/// <summary>Reply texts fit in a short string (RabbitMQ 3.10 cuts a long one to 252 bytes and "..."; checked against
/// it), and show offending bytes in hex.</summary>
public sealed class ReplyTextTests : IAsyncLifetime
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);
    private FakeAmqpBroker _broker = null!;

    public async Task InitializeAsync() =>
        _broker = await FakeAmqpBroker.StartAsync(new FakeAmqpBrokerOptions { HeartbeatSeconds = 0 });

    public async Task DisposeAsync() => await _broker.DisposeAsync();

    [Fact]
    public async Task Channel_close_text_longer_than_255_bytes_is_cut_like_RabbitMQ_and_the_connection_carries_on()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectOpenAsync(_broker.Endpoint, cts.Token);
        string name = new('x', 255);
        await client.SendMethodAsync(
            1,
            new ExchangeDeclare
            {
                Exchange = name,
                Type = "direct",
                Passive = true,
            },
            cts.Token
        );

        var close = await client.ExpectAsync<ChannelClose>(cts.Token);
        Assert.Equal((404, 40, 10), (close.ReplyCode, close.FailingClassId, close.FailingMethodId));
        Assert.Equal(255, Encoding.UTF8.GetByteCount(close.ReplyText));
        Assert.Equal("NOT_FOUND - no exchange '" + new string('x', 252 - 25) + "...", close.ReplyText);
        await client.SendMethodAsync(1, new ChannelCloseOk(), cts.Token);
        await client.OpenChannelAsync(2, cts.Token);
        await client.CloseAsync(cts.Token);
        // The finding keeps the whole explanation.
        Assert.Contains(name + "' in vhost '/'", Assert.Single(_broker.Connections[0].Findings).Message);
    }

    [Fact]
    public async Task CloseAsync_with_a_long_multibyte_text_sends_it_cut_at_a_character_boundary()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectAsync(_broker.Endpoint, cts.Token);
        await client.HandshakeAsync(cancellationToken: cts.Token);
        var connection = _broker.Connections[^1];
        string text = "SHUTDOWN - " + string.Concat(Enumerable.Repeat("é€", 100)); // 2- and 3-byte characters

        var closing = connection.CloseAsync(320, text);
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        await closing.WaitAsync(cts.Token);

        Assert.Equal(320, close.ReplyCode);
        Assert.EndsWith("...", close.ReplyText, StringComparison.Ordinal);
        int bytes = Encoding.UTF8.GetByteCount(close.ReplyText);
        Assert.InRange(bytes, 253, 255);
        Assert.StartsWith(close.ReplyText[..^3], text, StringComparison.Ordinal);
        Assert.Equal(close.ReplyText, connection.CloseInfo!.ReplyText);
    }

    [Fact]
    public async Task Frame_error_text_shows_the_payload_in_hex()
    {
        using var cts = new CancellationTokenSource(Timeout);
        await using var client = await AmqpTestClient.ConnectOpenAsync(_broker.Endpoint, cts.Token);
        await client.SendBytesAsync(
            MalformedFrames.WithFrameEnd(FrameBytes.Method(1, new BasicQos { PrefetchCount = 10 }), 0x41),
            cts.Token
        );
        var close = await client.ExpectConnectionCloseAsync(cts.Token);
        Assert.Equal(501, close.ReplyCode);
        Assert.Equal(
            "FRAME_ERROR - type 1, all 11 octets = 00 3c 00 0a 00 00 00 00 00 0a 00: invalid_frame_end_marker 0x41 (expected 0xce)",
            close.ReplyText
        );
    }
}
