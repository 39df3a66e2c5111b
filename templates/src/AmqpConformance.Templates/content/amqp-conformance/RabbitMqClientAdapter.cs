using AmqpConformance.Properties.Clients;
using RabbitMQ.Client;

namespace AmqpConformanceTests;

/// <summary>RabbitMQ.Client 7.x as a client under test: one IConnection per session, one IChannel per publisher
/// channel, publisher confirms with tracking (so BasicPublishAsync completes on the broker's ack), the sequence number
/// read before each publish.</summary>
/// <remarks>Shipped as source in the amqp-conformance template, so it compiles against whichever RabbitMQ.Client 7.x
/// your test project references. The AmqpConformance repository's own client suite compiles this very file.</remarks>
public sealed class RabbitMqClientAdapter : ClientAdapter
{
    public override string Name => "RabbitMQ.Client";

    public override async Task<IClientSession> ConnectAsync(
        ClientConnectOptions options,
        CancellationToken cancellationToken
    )
    {
        var factory = new ConnectionFactory
        {
            HostName = options.Host,
            Port = options.Port,
            RequestedFrameMax = (uint)options.FrameMax,
            AutomaticRecoveryEnabled = false,
            TopologyRecoveryEnabled = false,
            RequestedConnectionTimeout = TimeSpan.FromSeconds(5),
            ContinuationTimeout = TimeSpan.FromSeconds(5),
        };
        var connection = await factory.CreateConnectionAsync(cancellationToken);
        return new Session(connection, options.Confirms);
    }

    private sealed class Session(IConnection connection, bool confirms) : IClientSession
    {
        public async Task<IClientPublisher> OpenChannelAsync(CancellationToken cancellationToken)
        {
            var channel = await connection.CreateChannelAsync(
                new CreateChannelOptions(confirms, confirms),
                cancellationToken
            );
            return new Publisher(channel, confirms);
        }

        public async ValueTask DisposeAsync()
        {
            try
            {
                await connection.CloseAsync(TimeSpan.FromSeconds(2));
            }
            finally
            {
                connection.Dispose();
            }
        }
    }

    private sealed class Publisher(IChannel channel, bool confirms) : IClientPublisher
    {
        public ushort ChannelNumber => (ushort)channel.ChannelNumber;

        public async Task<ulong?> PublishAsync(
            string routingKey,
            ReadOnlyMemory<byte> body,
            int headerBytes,
            CancellationToken cancellationToken
        )
        {
            ulong? sequence = confirms ? await channel.GetNextPublishSequenceNumberAsync(cancellationToken) : null;
            var properties = new BasicProperties
            {
                ContentType = "application/octet-stream",
                DeliveryMode = DeliveryModes.Persistent,
            };
            if (headerBytes > 0)
                properties.Headers = new Dictionary<string, object?> { ["x-pad"] = new string('h', headerBytes) };
            await channel.BasicPublishAsync("", routingKey, mandatory: false, properties, body, cancellationToken);
            return sequence;
        }

        public async ValueTask DisposeAsync()
        {
            try
            {
                if (channel.IsOpen)
                    await channel.CloseAsync();
            }
            finally
            {
                channel.Dispose();
            }
        }
    }
}
