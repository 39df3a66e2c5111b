using System.IO.Pipelines;
using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport.Peers;

/// <summary>
/// The broker end of a raw connection (see <see cref="AmqpPeer"/>), driven step by step by a test for exact control of
/// what a client sees: read its protocol header, play the broker's handshake, expect its commands, send anything.
/// </summary>
public sealed class AmqpTestBroker : AmqpPeer
{
    private AmqpTestBroker(PipeReader input, PipeWriter output)
        : base(input, output) { }

    /// <summary>A broker over pipes: <paramref name="fromClient"/> carries the client's bytes,
    /// <paramref name="toClient"/> the broker's. Disposing it completes both.</summary>
    public static AmqpTestBroker Over(PipeReader fromClient, PipeWriter toClient) => new(fromClient, toClient);

    /// <summary>The client's first 8 bytes (its protocol header, or whatever it sent instead).</summary>
    /// <exception cref="PeerExpectationException">The stream ended before 8 bytes came.</exception>
    public async Task<byte[]> ReadProtocolHeaderAsync(CancellationToken cancellationToken)
    {
        byte[] header = await ReadBytesAsync(ProtocolHeaderCheck.Length, cancellationToken).ConfigureAwait(false);
        return header.Length == ProtocolHeaderCheck.Length
            ? header
            : throw new PeerExpectationException(
                $"The stream ended after {header.Length} byte(s) of the protocol header."
            );
    }

    /// <summary>Plays the broker's handshake: expects the AMQP 0-9-1 header, sends connection.start (offering
    /// <paramref name="mechanisms"/>), expects start-ok, sends the tune, expects tune-ok and connection.open, sends
    /// open-ok.</summary>
    /// <returns>What the client sent.</returns>
    /// <exception cref="PeerExpectationException">The client sent another header or method, or ended the
    /// stream.</exception>
    public async Task<(ConnectionStartOk StartOk, ConnectionTuneOk TuneOk, ConnectionOpen Open)> HandshakeAsync(
        ConnectionTune tune,
        CancellationToken cancellationToken,
        string mechanisms = "AMQPLAIN PLAIN"
    )
    {
        ArgumentNullException.ThrowIfNull(tune);
        byte[] header = await ReadProtocolHeaderAsync(cancellationToken).ConfigureAwait(false);
        if (ProtocolHeaderCheck.Inspect(header) != ProtocolHeaderStatus.Amqp091)
            throw new PeerExpectationException(
                $"Expected the AMQP 0-9-1 protocol header, got {Convert.ToHexString(header)}."
            );
        await SendMethodAsync(0, new ConnectionStart { Mechanisms = mechanisms }, cancellationToken)
            .ConfigureAwait(false);
        var startOk = await ExpectAsync<ConnectionStartOk>(cancellationToken).ConfigureAwait(false);
        await SendMethodAsync(0, tune, cancellationToken).ConfigureAwait(false);
        var tuneOk = await ExpectAsync<ConnectionTuneOk>(cancellationToken).ConfigureAwait(false);
        var open = await ExpectAsync<ConnectionOpen>(cancellationToken).ConfigureAwait(false);
        await SendMethodAsync(0, new ConnectionOpenOk(), cancellationToken).ConfigureAwait(false);
        return (startOk, tuneOk, open);
    }
}
