using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

public sealed partial class BrokerConnection
{
    /// <summary>Where the connection is in its handshake (RabbitMQ's starting / tuning / opening / running).</summary>
    private enum HandshakePhase
    {
        Starting,
        Tuning,
        Opening,
        Running,
    }

    private HandshakePhase _phase = HandshakePhase.Starting;

    private FrameOutcome HandleConnectionMethod(IAmqpMethod method)
    {
        switch (method)
        {
            case ConnectionClose close:
                SetCloseInfo(
                    new ConnectionCloseInfo(
                        CloseInitiator.Client,
                        close.ReplyCode,
                        close.ReplyText,
                        close.FailingClassId,
                        close.FailingMethodId
                    )
                );
                _closing = true;
                FlushConfirms(); // confirms of publishes before the close go out before close-ok, as in RabbitMQ
                SendMethod(0, new ConnectionCloseOk());
                return FrameOutcome.Stop;
            case ConnectionStartOk startOk when _phase == HandshakePhase.Starting:
                OnStartOk(startOk);
                return FrameOutcome.Continue;
            case ConnectionTuneOk tuneOk when _phase == HandshakePhase.Tuning:
                OnTuneOk(tuneOk);
                return FrameOutcome.Continue;
            case ConnectionOpen open when _phase == HandshakePhase.Opening:
                OnOpen(open);
                return FrameOutcome.Continue;
            case ConnectionUpdateSecret when _phase == HandshakePhase.Running:
                SendMethod(0, new ConnectionUpdateSecretOk());
                return FrameOutcome.Continue;
            default:
                throw new ProtocolViolationException(
                    ReplyCodes.ChannelError,
                    "unexpected-connection-method",
                    $"unexpected method in connection state {_phase.ToString().ToLowerInvariant()}",
                    closeSocketOnly: !IsTuned
                );
        }
    }

    private void OnStartOk(ConnectionStartOk startOk)
    {
        ClientProperties = startOk.ClientProperties;
        bool failureClose = HasCapability(startOk.ClientProperties, "authentication_failure_close");
        ConsumerCancelNotify = HasCapability(startOk.ClientProperties, "consumer_cancel_notify");
        (string? user, string? password) = startOk.Mechanism switch
        {
            "PLAIN" => ParsePlain(startOk.Response.Span),
            "AMQPLAIN" => ParseAmqPlain(startOk.Response.Span),
            _ => throw new ProtocolViolationException(
                ReplyCodes.CommandInvalid,
                "unknown-auth-mechanism",
                $"unknown authentication mechanism '{startOk.Mechanism}'",
                closeSocketOnly: true
            ),
        };
        if (user is null || password is null)
            throw new ProtocolViolationException(
                ReplyCodes.SyntaxError,
                "bad-auth-response",
                $"{startOk.Mechanism} response could not be parsed",
                closeSocketOnly: true
            );
        if (
            !_options.Users.TryGetValue(user, out var expected)
            || !string.Equals(expected, password, StringComparison.Ordinal)
        )
            throw new ProtocolViolationException(
                ReplyCodes.AccessRefused,
                "access-refused",
                $"Login was refused using authentication mechanism {startOk.Mechanism}. For details see the broker logfile.",
                classId: 0,
                methodId: 0,
                closeSocketOnly: !failureClose
            );
        UserName = user;
        _phase = HandshakePhase.Tuning;
        SendMethod(
            0,
            new ConnectionTune
            {
                ChannelMax = _options.ChannelMax,
                FrameMax = (uint)_options.FrameMax,
                Heartbeat = _options.HeartbeatSeconds,
            }
        );
    }

    /// <summary>Whether the client's capabilities table (in start-ok's client properties) sets <paramref name="name"/>
    /// to true.</summary>
    private static bool HasCapability(FieldTable clientProperties, string name) =>
        clientProperties.TryGetValue("capabilities", out var caps)
        && caps.Value is FieldTable capabilities
        && capabilities.TryGetValue(name, out var flag)
        && flag.Value is true;

    private static (string? User, string? Password) ParsePlain(ReadOnlySpan<byte> response)
    {
        // authzid \0 authcid \0 password
        int first = response.IndexOf((byte)0);
        if (first < 0)
            return (null, null);
        var rest = response[(first + 1)..];
        int second = rest.IndexOf((byte)0);
        if (second < 0)
            return (null, null);
        return (
            System.Text.Encoding.UTF8.GetString(rest[..second]),
            System.Text.Encoding.UTF8.GetString(rest[(second + 1)..])
        );
    }

    private static (string? User, string? Password) ParseAmqPlain(ReadOnlySpan<byte> response)
    {
        // A field table's entries without the table's length prefix (RabbitMQ's AMQPLAIN).
        string? user = null,
            password = null;
        try
        {
            var reader = new AmqpReader(response);
            while (reader.Remaining > 0)
            {
                string key = reader.ReadShortString("key");
                var value = reader.ReadFieldValue("value");
                if (key == "LOGIN")
                    user = value.AsString();
                else if (key == "PASSWORD")
                    password = value.AsString();
            }
        }
        catch (Exception ex) when (ex is AmqpDecodeException or InvalidOperationException or InvalidCastException)
        {
            return (null, null); // undecodable: the caller reports "response could not be parsed" (a syntax error)
        }
        return (user, password);
    }

    private void OnTuneOk(ConnectionTuneOk tuneOk)
    {
        ValidateNegotiated("frame_max", AmqpConstants.FrameMinSize, (uint)_options.FrameMax, tuneOk.FrameMax);
        ValidateNegotiated("channel_max", 1, _options.ChannelMax, tuneOk.ChannelMax);
        FrameMax = (int)tuneOk.FrameMax;
        ChannelMax = tuneOk.ChannelMax;
        HeartbeatSeconds = tuneOk.Heartbeat;
        IsTuned = true;
        _phase = HandshakePhase.Opening;
        if (tuneOk.Heartbeat > 0)
        {
            int seconds = tuneOk.Heartbeat;
            _heartbeatLoop = Task.Run(() => HeartbeatLoopAsync(seconds));
        }
    }

    /// <summary>RabbitMQ's rule: the client's value may not be below the minimum, nor above the server's (and not 0,
    /// i.e. unlimited, when the server has a limit). RabbitMQ 3.x then drops the socket; newer versions send
    /// 530.</summary>
    private static void ValidateNegotiated(string field, uint minimum, uint server, uint client)
    {
        string? problem = null;
        if (client != 0 && client < minimum)
            problem = $"negotiated {field} = {client} is lower than the minimum allowed value ({minimum})";
        else if (server != 0 && (client == 0 || client > server))
            problem = $"negotiated {field} = {client} is higher than the maximum allowed value ({server})";
        if (problem is not null)
            throw new ProtocolViolationException(
                ReplyCodes.NotAllowed,
                "tune-ok-out-of-range",
                problem,
                ConnectionTune.ClassIdValue,
                ConnectionTune.MethodIdValue,
                closeSocketOnly: true
            );
    }

    private void OnOpen(ConnectionOpen open)
    {
        var host = _broker.FindVirtualHost(open.VirtualHost)
            ?? throw new ProtocolViolationException(
                ReplyCodes.NotAllowed,
                "vhost-not-found",
                $"vhost {open.VirtualHost} not found"
            );
        Host = host;
        VirtualHostName = host.Name;
        _phase = HandshakePhase.Running;
        SendMethod(0, new ConnectionOpenOk());
        _opened.TrySetResult(true);
    }
}
