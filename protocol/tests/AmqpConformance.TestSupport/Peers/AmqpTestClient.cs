using System.IO.Pipelines;
using System.Net;
using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport.Peers;

/// <summary>
/// The client end of a raw connection (see <see cref="AmqpPeer"/>): a handshake that can stop after any step
/// (<see cref="HandshakeStep"/>), channel open, publish and close, plus everything the base sends and expects. For the
/// happy path with a real frame writer, tests use the harness's <c>HarnessConnection</c> instead; this one is for the
/// bytes.
/// </summary>
public sealed class AmqpTestClient : AmqpPeer
{
    private AmqpTestClient(
        PipeReader input,
        PipeWriter output,
        IAsyncDisposable? owned = null,
        System.Net.Sockets.Socket? socket = null
    )
        : base(input, output, owned, socket) { }

    /// <summary>connection.start as the broker sent it (after <see cref="HandshakeStep.StartOk"/>).</summary>
    public ConnectionStart? Start { get; private set; }

    /// <summary>connection.tune as the broker offered it (after <see cref="HandshakeStep.TuneOk"/>).</summary>
    public ConnectionTune? Tune { get; private set; }

    /// <summary>The tune-ok this client answered with (after <see cref="HandshakeStep.TuneOk"/>).</summary>
    public ConnectionTuneOk? TuneOk { get; private set; }

    /// <summary>Connects over TCP; nothing is sent yet.</summary>
    public static async Task<AmqpTestClient> ConnectAsync(EndPoint endpoint, CancellationToken cancellationToken)
    {
        var (input, output, stream, socket) = await ConnectTcpAsync(endpoint, cancellationToken).ConfigureAwait(false);
        return new AmqpTestClient(input, output, stream, socket);
    }

    /// <summary>Connects over TCP to <paramref name="host"/> (an IP address, e.g. 127.0.0.1); nothing is sent
    /// yet.</summary>
    public static Task<AmqpTestClient> ConnectAsync(string host, int port, CancellationToken cancellationToken) =>
        ConnectAsync(new IPEndPoint(IPAddress.Parse(host), port), cancellationToken);

    /// <summary>Connects over TCP, completes the handshake and opens <paramref name="channel"/>.</summary>
    public static async Task<AmqpTestClient> ConnectOpenAsync(
        EndPoint endpoint,
        CancellationToken cancellationToken,
        TestPeerHandshake? handshake = null,
        ushort channel = 1
    )
    {
        AmqpTestClient client = await ConnectAsync(endpoint, cancellationToken).ConfigureAwait(false);
        try
        {
            await client.HandshakeAsync(handshake, HandshakeStep.Open, cancellationToken).ConfigureAwait(false);
            await client.OpenChannelAsync(channel, cancellationToken).ConfigureAwait(false);
            return client;
        }
        catch
        {
            await client.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>A client over pipes: <paramref name="fromBroker"/> carries the broker's bytes,
    /// <paramref name="toBroker"/> the client's. Disposing it completes both.</summary>
    public static AmqpTestClient Over(PipeReader fromBroker, PipeWriter toBroker) => new(fromBroker, toBroker);

    /// <summary>Plays the client's handshake up to and including <paramref name="stopAfter"/>: protocol header;
    /// connection.start, start-ok; connection.tune, tune-ok; connection.open, open-ok.</summary>
    /// <exception cref="PeerExpectationException">The broker answered otherwise (a close: see
    /// <see cref="PeerExpectationException.Method"/>) or ended the stream.</exception>
    public async Task HandshakeAsync(
        TestPeerHandshake? handshake = null,
        HandshakeStep stopAfter = HandshakeStep.Open,
        CancellationToken cancellationToken = default
    )
    {
        handshake ??= TestPeerHandshake.Default;
        await SendProtocolHeaderAsync(cancellationToken).ConfigureAwait(false);
        if (stopAfter == HandshakeStep.ProtocolHeader)
            return;

        Start = await ExpectAsync<ConnectionStart>(cancellationToken).ConfigureAwait(false);
        await SendMethodAsync(0, handshake.StartOk(), cancellationToken).ConfigureAwait(false);
        if (stopAfter == HandshakeStep.StartOk)
            return;

        Tune = await ExpectAsync<ConnectionTune>(cancellationToken).ConfigureAwait(false);
        TuneOk = handshake.TuneOk(Tune);
        await SendMethodAsync(0, TuneOk, cancellationToken).ConfigureAwait(false);
        if (stopAfter == HandshakeStep.TuneOk)
            return;

        await SendMethodAsync(0, new ConnectionOpen { VirtualHost = handshake.VirtualHost }, cancellationToken)
            .ConfigureAwait(false);
        await ExpectAsync<ConnectionOpenOk>(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>channel.open on <paramref name="channel"/>, then channel.open-ok.</summary>
    public async Task OpenChannelAsync(ushort channel, CancellationToken cancellationToken)
    {
        await SendMethodAsync(channel, new ChannelOpen(), cancellationToken).ConfigureAwait(false);
        await ExpectAsync<ChannelOpenOk>(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>basic.publish, header and body frames of at most <paramref name="frameMax"/> - 8 bytes (0 = one frame),
    /// in one flush. Waits for nothing.</summary>
    public Task PublishAsync(
        ushort channel,
        string exchange,
        string routingKey,
        ReadOnlySpan<byte> body,
        int frameMax,
        bool mandatory = false,
        BasicProperties? properties = null,
        CancellationToken cancellationToken = default
    ) =>
        SendContentAsync(
            channel,
            new BasicPublish
            {
                Exchange = exchange,
                RoutingKey = routingKey,
                Mandatory = mandatory,
            },
            body,
            frameMax,
            properties,
            cancellationToken
        );

    /// <summary>connection.close 200, then reads (skipping everything else) until connection.close-ok.</summary>
    /// <exception cref="PeerExpectationException">The broker sent its own connection.close first (see
    /// <see cref="PeerExpectationException.Method"/>), or ended the stream.</exception>
    public async Task CloseAsync(CancellationToken cancellationToken)
    {
        await SendMethodAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, cancellationToken)
            .ConfigureAwait(false);
        while (true)
        {
            ReceivedFrame frame = await ReadFrameAsync(cancellationToken).ConfigureAwait(false)
                ?? throw new PeerExpectationException("The stream ended while connection.close-ok was expected.");
            if (frame.Channel != 0)
                continue;
            switch (frame.MethodOrNull)
            {
                case ConnectionCloseOk:
                    return;
                case ConnectionClose:
                    throw new PeerExpectationException($"Expected connection.close-ok, got {frame}.", frame);
            }
        }
    }
}
