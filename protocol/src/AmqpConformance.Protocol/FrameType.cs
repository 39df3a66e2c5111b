namespace AmqpConformance.Protocol;

/// <summary>The frame types of AMQP 0-9-1 (the first octet of every frame).</summary>
public enum FrameType : byte
{
    /// <summary>A method frame: class id, method id, arguments.</summary>
    Method = 1,

    /// <summary>A content header frame: class id, weight, body size, property flags and properties.</summary>
    Header = 2,

    /// <summary>A content body frame: an opaque slice of the body.</summary>
    Body = 3,

    /// <summary>A heartbeat frame; only legal on channel 0 with an empty payload.</summary>
    Heartbeat = 8,
}
