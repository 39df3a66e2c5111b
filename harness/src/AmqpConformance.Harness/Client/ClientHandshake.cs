using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Client;

/// <summary>
/// The client side of the AMQP 0-9-1 connection handshake, written straight to a transport: protocol header, start-ok
/// (SASL PLAIN), tune-ok, open, and optionally channel.open / confirm.select. Used by <see cref="HarnessConnection"/>
/// before its writer exists, and by the conformance runner, which hands the output to the writer under test only once
/// the connection is open.
/// </summary>
/// <remarks>Reads the broker's replies from the transport's input, skipping heartbeats; a broker's connection.close or
/// the end of the input fails with <see cref="HarnessConnectionException"/>. Not thread-safe: one handshake per
/// transport, nothing else reading or writing it meanwhile.</remarks>
public static class ClientHandshake
{
    /// <summary>Runs the handshake up to connection.open-ok, as <paramref name="options"/> say (user, vhost, frame_max,
    /// heartbeat).</summary>
    /// <returns>What was negotiated.</returns>
    /// <exception cref="HarnessConnectionException">The broker refused or broke off the handshake.</exception>
    public static async Task<ClientTuning> OpenAsync(
        IDuplexPipe transport,
        HarnessClientOptions options,
        CancellationToken cancellationToken
    )
    {
        ArgumentNullException.ThrowIfNull(transport);
        ArgumentNullException.ThrowIfNull(options);
        var output = transport.Output;
        output.Write(AmqpConstants.ProtocolHeader);
        await FlushAsync(transport, cancellationToken).ConfigureAwait(false);

        var start = await ReadMethodAsync<ConnectionStart>(transport, cancellationToken).ConfigureAwait(false);
        if (!start.Mechanisms.Split(' ', StringSplitOptions.RemoveEmptyEntries).Contains("PLAIN"))
            throw new HarnessConnectionException(
                $"The broker does not offer SASL PLAIN (it offers \"{start.Mechanisms}\")."
            );
        output.WriteMethodFrame(
            0,
            new ConnectionStartOk
            {
                ClientProperties = FieldTable.FromObjects(
                    new Dictionary<string, object?>
                    {
                        ["product"] = options.ClientProduct,
                        ["platform"] = ".NET",
                        ["capabilities"] = FieldTable.FromObjects(
                            new Dictionary<string, object?>
                            {
                                ["publisher_confirms"] = true,
                                ["basic.nack"] = true,
                                ["connection.blocked"] = true,
                                ["authentication_failure_close"] = true,
                            }
                        ),
                    }
                ),
                Mechanism = "PLAIN",
                Response = Encoding.UTF8.GetBytes($"\0{options.UserName}\0{options.Password}"),
                Locale = "en_US",
            }
        );
        await FlushAsync(transport, cancellationToken).ConfigureAwait(false);

        var tune = await ReadMethodAsync<ConnectionTune>(transport, cancellationToken).ConfigureAwait(false);
        int frameMax = (int)Negotiate(tune.FrameMax, (uint)options.FrameMax);
        output.WriteMethodFrame(
            0,
            new ConnectionTuneOk
            {
                ChannelMax = tune.ChannelMax,
                FrameMax = (uint)frameMax,
                Heartbeat = options.HeartbeatSeconds,
            }
        );
        output.WriteMethodFrame(0, new ConnectionOpen { VirtualHost = options.VirtualHost });
        await FlushAsync(transport, cancellationToken).ConfigureAwait(false);
        await ReadMethodAsync<ConnectionOpenOk>(transport, cancellationToken).ConfigureAwait(false);
        return new ClientTuning(frameMax, tune.ChannelMax, options.HeartbeatSeconds, start.ServerProperties);
    }

    /// <summary>Opens <paramref name="channels"/> on an open connection by writing channel.open (and, with
    /// <paramref name="confirms"/>, confirm.select) straight to <paramref name="transport"/> and reading each reply:
    /// for a caller that hands the output to a writer under test afterwards and wants nothing but its commands to go
    /// through the writer. All the requests go out in one flush and the replies are read after (channels are
    /// independent, so a broker answers them in order): one round trip, not one per channel.</summary>
    /// <exception cref="HarnessConnectionException">The broker refused or closed the connection.</exception>
    public static async Task OpenChannelsAsync(
        IDuplexPipe transport,
        IEnumerable<ushort> channels,
        bool confirms,
        CancellationToken cancellationToken
    )
    {
        ArgumentNullException.ThrowIfNull(transport);
        ArgumentNullException.ThrowIfNull(channels);
        int opened = 0;
        foreach (ushort channel in channels)
        {
            transport.Output.WriteMethodFrame(channel, new ChannelOpen());
            if (confirms)
                transport.Output.WriteMethodFrame(channel, new ConfirmSelect());
            opened++;
        }
        if (opened == 0)
            return;
        await FlushAsync(transport, cancellationToken).ConfigureAwait(false);
        for (int i = 0; i < opened; i++)
        {
            await ReadMethodAsync<ChannelOpenOk>(transport, cancellationToken).ConfigureAwait(false);
            if (confirms)
                await ReadMethodAsync<ConfirmSelectOk>(transport, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>AMQP's rule: 0 means "no limit" on either side; otherwise the lower value wins.</summary>
    private static uint Negotiate(uint server, uint client) =>
        server == 0 ? client
        : client == 0 ? server
        : Math.Min(server, client);

    private static async Task FlushAsync(IDuplexPipe transport, CancellationToken cancellationToken)
    {
        var result = await transport.Output.FlushAsync(cancellationToken).ConfigureAwait(false);
        if (result.IsCompleted)
            throw new HarnessConnectionException("The broker stopped reading during the handshake.");
    }

    private static async Task<T> ReadMethodAsync<T>(IDuplexPipe transport, CancellationToken cancellationToken)
        where T : class, IAmqpMethod
    {
        var input = transport.Input;
        while (true)
        {
            var result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            var buffer = result.Buffer;
            IAmqpMethod? method = null;
            try
            {
                while (method is null)
                {
                    var status = FrameReader.TryReadFrame(ref buffer, FrameReader.MaxPayloadFor(0), out var frame);
                    if (status == FrameReadStatus.NeedMoreData)
                        break;
                    if (status != FrameReadStatus.Frame)
                        throw new HarnessConnectionException(
                            $"The broker sent a malformed frame during the handshake ({status}: {frame})."
                        );
                    if (frame.Type == FrameType.Method)
                        method = MethodCodec.Decode(frame.Payload);
                }
            }
            finally
            {
                // Frames after the one found stay unexamined: the next read returns them at once (replies may come back
                // to back).
                if (method is null)
                    input.AdvanceTo(buffer.Start, buffer.End);
                else
                    input.AdvanceTo(buffer.Start);
            }
            switch (method)
            {
                case T expected:
                    return expected;
                case ConnectionClose close:
                    throw new HarnessConnectionException(
                        $"The broker closed the connection during the handshake: {close.ReplyCode} {close.ReplyText}",
                        replyCode: close.ReplyCode,
                        replyText: close.ReplyText
                    );
                case not null:
                    throw new HarnessConnectionException(
                        $"Expected {typeof(T).Name} during the handshake, got {method.Name}."
                    );
            }
            if (result.IsCompleted)
                throw new HarnessConnectionException(
                    $"The broker closed the connection during the handshake (waiting for {typeof(T).Name})."
                );
        }
    }
}
