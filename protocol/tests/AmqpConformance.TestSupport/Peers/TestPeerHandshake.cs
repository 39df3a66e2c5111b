using System.Text;
using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport.Peers;

/// <summary>What <see cref="AmqpTestClient"/> says in the handshake. The defaults log in as guest/guest on "/" (PLAIN),
/// accept the broker's frame_max and channel_max, and turn heartbeats off.</summary>
public sealed record TestPeerHandshake
{
    /// <summary>The default handshake.</summary>
    public static TestPeerHandshake Default { get; } = new();

    /// <summary>The user name in the PLAIN response.</summary>
    public string User { get; init; } = "guest";

    /// <summary>The password in the PLAIN response.</summary>
    public string Password { get; init; } = "guest";

    /// <summary>The SASL mechanism named in start-ok.</summary>
    public string Mechanism { get; init; } = "PLAIN";

    /// <summary>The SASL response; null sends PLAIN's "\0user\0password".</summary>
    public ReadOnlyMemory<byte>? Response { get; init; }

    /// <summary>The virtual host in connection.open.</summary>
    public string VirtualHost { get; init; } = "/";

    /// <summary>frame_max in tune-ok; null accepts the broker's offer as it is (0 included).</summary>
    public uint? FrameMax { get; init; }

    /// <summary>channel_max in tune-ok; null accepts the broker's offer.</summary>
    public ushort? ChannelMax { get; init; }

    /// <summary>The heartbeat interval in tune-ok, in seconds (0 = off).</summary>
    public ushort Heartbeat { get; init; }

    /// <summary>The "product" client property.</summary>
    public string Product { get; init; } = "AmqpConformance.TestSupport";

    /// <summary>Whether the capabilities table announces authentication_failure_close (a refused login then gets a 403
    /// close instead of a dropped socket).</summary>
    public bool AuthenticationFailureClose { get; init; } = true;

    /// <summary>Further capabilities announced as true (e.g. consumer_cancel_notify).</summary>
    public IReadOnlyList<string> Capabilities { get; init; } = [];

    /// <summary>The connection.start-ok this handshake sends.</summary>
    public ConnectionStartOk StartOk()
    {
        var capabilities = AuthenticationFailureClose
            ? new FieldTable { ["authentication_failure_close"] = true }
            : FieldTable.Empty;
        foreach (string capability in Capabilities)
            capabilities = capabilities.With(capability, true);
        return new ConnectionStartOk
        {
            ClientProperties = new FieldTable
            {
                ["product"] = FieldValue.LongString(Product),
                ["capabilities"] = FieldValue.Table(capabilities),
            },
            Mechanism = Mechanism,
            Response = Response ?? Encoding.UTF8.GetBytes($"\0{User}\0{Password}"),
        };
    }

    /// <summary>The connection.tune-ok answering <paramref name="tune"/>.</summary>
    public ConnectionTuneOk TuneOk(ConnectionTune tune)
    {
        ArgumentNullException.ThrowIfNull(tune);
        return new ConnectionTuneOk
        {
            ChannelMax = ChannelMax ?? tune.ChannelMax,
            FrameMax = FrameMax ?? tune.FrameMax,
            Heartbeat = Heartbeat,
        };
    }
}
