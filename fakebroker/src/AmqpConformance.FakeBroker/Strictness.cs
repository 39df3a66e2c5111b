namespace AmqpConformance.FakeBroker;

/// <summary>How much the fake broker reports beyond what RabbitMQ enforces.</summary>
public enum Strictness
{
    /// <summary>Only RabbitMQ's own rules: every violation closes the connection (or channel) with the code
    /// RabbitMQ 3.x uses; nothing RabbitMQ lets through is reported.</summary>
    RabbitMq,

    /// <summary>RabbitMQ's rules, plus findings (recorded, never closing) for what RabbitMQ lets through but a
    /// frame writer that promises whole, contiguous commands must never produce: frames over frame_max,
    /// non-final body frames shorter than frame_max - 8, content of one channel interleaved with another's,
    /// bodies longer than their header declared, channel numbers above channel_max.</summary>
    Strict,
}
