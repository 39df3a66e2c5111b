using System.Net;
using AmqpConformance.Protocol.Recording;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.FakeBroker;

/// <summary>How a <see cref="FakeAmqpBroker"/> listens, what it offers in connection.tune, whom it lets in, and
/// how strictly it validates. Immutable; the defaults mirror a stock RabbitMQ 3.x on loopback.</summary>
public sealed record FakeAmqpBrokerOptions
{
    /// <summary>The address to listen on (default 127.0.0.1).</summary>
    public IPAddress Host { get; init; } = IPAddress.Loopback;

    /// <summary>The TCP port; 0 (default) picks a free one (read it from <see cref="FakeAmqpBroker.Port"/>).</summary>
    public int Port { get; init; }

    /// <summary>frame_max offered in connection.tune (default 131072, RabbitMQ's). 0 means unlimited; otherwise at
    /// least 4096. A client may accept it or lower it (not below 4096); anything else is refused with 530.</summary>
    public int FrameMax { get; init; } = 131072;

    /// <summary>channel_max offered in connection.tune (default 2047, RabbitMQ's); 0 means no limit.</summary>
    public ushort ChannelMax { get; init; } = 2047;

    /// <summary>Heartbeat interval offered in connection.tune, in seconds (default 60); 0 offers none. As in RabbitMQ,
    /// the value the client sends back in tune-ok is the one used.</summary>
    public ushort HeartbeatSeconds { get; init; } = 60;

    /// <summary>User name to password. Default: guest/guest.</summary>
    public IReadOnlyDictionary<string, string> Users { get; init; } =
        new Dictionary<string, string>(StringComparer.Ordinal) { ["guest"] = "guest" };

    /// <summary>The virtual hosts connection.open may name (default "/").</summary>
    public IReadOnlyList<string> VirtualHosts { get; init; } = ["/"];

    /// <summary>Whether to report, without closing, what RabbitMQ lets through (default
    /// <see cref="Strictness.Strict"/>).</summary>
    public Strictness Strictness { get; init; } = Strictness.Strict;

    /// <summary>What each connection's <see cref="FrameLog"/> keeps.</summary>
    public FrameLogOptions FrameLog { get; init; } = FrameLogOptions.Default;

    /// <summary>The largest frame payload accepted when frame_max is negotiated as 0 (unlimited), so that a frame
    /// claiming gigabytes is refused (501) from its header alone. Default 128 MiB.</summary>
    public long MaxPayloadWhenUnlimited { get; init; } = 128L * 1024 * 1024;

    /// <summary>Entries added to (or replacing) the server properties of connection.start. Values are converted with
    /// <c>FieldValue.FromObject</c>. The capabilities table and product are always sent unless replaced here.</summary>
    public IReadOnlyDictionary<string, object?> ServerProperties { get; init; } = new Dictionary<string, object?>();

    /// <summary>How long the broker waits for connection.close-ok after sending connection.close before it
    /// closes the socket anyway (default 1 s; RabbitMQ waits up to 3 s after a frame error).</summary>
    public TimeSpan CloseTimeout { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>How long a client has, from the moment it is accepted, to complete the handshake (protocol header to
    /// connection.open-ok). A connection still short of open-ok then is closed without connection.close and gets a
    /// "handshake-timeout" finding, as RabbitMQ's <c>handshake_timeout</c> (10 s, the default here) does.
    /// <see cref="Timeout.InfiniteTimeSpan"/> waits forever.</summary>
    public TimeSpan HandshakeTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Whether every completed publish is kept in <see cref="BrokerConnection.Published"/> (default on).
    /// Turn off for long standalone runs; queues keep their messages either way.</summary>
    public bool KeepPublished { get; init; } = true;

    /// <summary>When on (default), publisher confirms due at the end of one read batch go out as a single basic.ack
    /// with multiple=true when several are due, as RabbitMQ does under load; otherwise one ack per publish.</summary>
    public bool CoalesceConfirms { get; init; } = true;

    /// <summary>The clock heartbeats run on: when one is due, and when a silent client has missed two intervals
    /// (default <see cref="TimeProvider.System"/>). Tests pass a fake one to drive heartbeats without
    /// waiting.</summary>
    public TimeProvider HeartbeatClock { get; init; } = TimeProvider.System;

    /// <summary>How much of the connections that ended the broker keeps: by default the last 100 to end with their
    /// frame logs (within 64 MiB of estimated log memory), then a summary each for the last 10,000, then counters only
    /// (<see cref="ConnectionRetention"/>). <see cref="ConnectionRetention.Unlimited"/> keeps everything.</summary>
    public ConnectionRetention Retention { get; init; } = ConnectionRetention.Default;

    /// <summary>Where the broker logs (category <c>AmqpConformance.FakeBroker</c>): each connection accepted and closed
    /// at Information, a violation that closed a channel or the connection at Warning, its own failures at Error,
    /// findings reported without closing at Debug; never a line per frame at Information. Null (the default) logs
    /// nothing (<c>NullLoggerFactory</c>). The broker never disposes the factory. Logging runs on the connection's own
    /// threads, so a provider that blocks (a console whose reader stopped reading) would stall the connection: give it
    /// a non-blocking one.</summary>
    public ILoggerFactory? LoggerFactory { get; init; }

    /// <summary>Checks the options; throws <see cref="ArgumentException"/> naming the bad one.</summary>
    public void Validate()
    {
        ArgumentNullException.ThrowIfNull(Host, nameof(Host));
        if (Port is < 0 or > 65535)
            throw new ArgumentException($"Port {Port} is not a TCP port (0-65535).", nameof(Port));
        if (FrameMax != 0 && FrameMax < 4096)
            throw new ArgumentException(
                $"FrameMax {FrameMax} is below the AMQP minimum 4096 (use 0 for unlimited).",
                nameof(FrameMax)
            );
        if (FrameMax < 0)
            throw new ArgumentException("FrameMax cannot be negative.", nameof(FrameMax));
        if (MaxPayloadWhenUnlimited < 4096)
            throw new ArgumentException(
                "MaxPayloadWhenUnlimited must be at least 4096.",
                nameof(MaxPayloadWhenUnlimited)
            );
        ArgumentNullException.ThrowIfNull(Users, nameof(Users));
        ArgumentNullException.ThrowIfNull(VirtualHosts, nameof(VirtualHosts));
        if (VirtualHosts.Count == 0)
            throw new ArgumentException("At least one virtual host is needed.", nameof(VirtualHosts));
        ArgumentNullException.ThrowIfNull(FrameLog, nameof(FrameLog));
        ArgumentNullException.ThrowIfNull(Retention, nameof(Retention));
        ArgumentNullException.ThrowIfNull(HeartbeatClock, nameof(HeartbeatClock));
        ArgumentNullException.ThrowIfNull(ServerProperties, nameof(ServerProperties));
        if (HandshakeTimeout <= TimeSpan.Zero && HandshakeTimeout != Timeout.InfiniteTimeSpan)
            throw new ArgumentException(
                "HandshakeTimeout must be positive (or Timeout.InfiniteTimeSpan).",
                nameof(HandshakeTimeout)
            );
        if (CloseTimeout < TimeSpan.Zero)
            throw new ArgumentException("CloseTimeout cannot be negative.", nameof(CloseTimeout));
    }
}
