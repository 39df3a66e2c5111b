using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Client;

/// <summary>What a client handshake negotiated.</summary>
/// <param name="FrameMax">frame_max in force (0 = unlimited).</param>
/// <param name="ChannelMax">channel_max in force (0 = no limit).</param>
/// <param name="HeartbeatSeconds">The heartbeat interval the client sent in tune-ok (0 = off).</param>
/// <param name="ServerProperties">The broker's connection.start server properties.</param>
public sealed record ClientTuning(
    int FrameMax,
    ushort ChannelMax,
    ushort HeartbeatSeconds,
    FieldTable ServerProperties
);
