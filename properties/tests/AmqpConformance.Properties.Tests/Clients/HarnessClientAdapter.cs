using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Clients;

namespace AmqpConformance.Properties.Tests.Clients;

/// <summary>The harness's own client (<see cref="HarnessConnection"/>, its background writer) as a whole client at
/// client level: a client whose bytes are the same on every run (no heartbeats, fixed client properties), so two runs
/// of a scenario send the same byte counts. Publishes without headers. Its frame writer is the background one unless
/// another is given.</summary>
internal sealed class HarnessClientAdapter(FrameWriterFactory? writer = null) : ClientAdapter
{
    public override string Name => "harness client" + (writer is null ? "" : $" ({writer.Name})");

    public override async Task<IClientSession> ConnectAsync(
        ClientConnectOptions options,
        CancellationToken cancellationToken
    )
    {
        var connection = await HarnessConnection.ConnectAsync(
            options.Endpoint,
            new HarnessClientOptions { FrameMax = options.FrameMax, WriterFactory = writer ?? WriterModes.Background },
            cancellationToken
        );
        return new Session(connection, options.Confirms);
    }

    private sealed class Session(HarnessConnection connection, bool confirms) : IClientSession
    {
        public async Task<IClientPublisher> OpenChannelAsync(CancellationToken cancellationToken) =>
            new Publisher(await connection.OpenChannelAsync(confirms, cancellationToken), confirms);

        public ValueTask DisposeAsync() => connection.DisposeAsync();
    }

    private sealed class Publisher(HarnessChannel channel, bool confirms) : IClientPublisher
    {
        public ushort ChannelNumber => channel.Number;

        public async Task<ulong?> PublishAsync(
            string routingKey,
            ReadOnlyMemory<byte> body,
            int headerBytes,
            CancellationToken cancellationToken
        )
        {
            ulong sequence = await channel.PublishAsync("", routingKey, body, cancellationToken: cancellationToken);
            return confirms ? sequence : null;
        }

        // On a connection that was reset this throws; the runner records it and goes on (its verdict does not depend on
        // closing the channels).
        public ValueTask DisposeAsync() => new(channel.CloseAsync());
    }
}
