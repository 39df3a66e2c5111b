namespace AmqpConformance.Properties.Scenarios;

/// <summary>How a scenario's publishers map onto channels.</summary>
public enum ChannelLayout
{
    /// <summary>Publisher p publishes on channel p + 1.</summary>
    OwnChannel,

    /// <summary>Every publisher publishes on channel 1; access to it is serialized (one publish in flight on it at a
    /// time), as a client's channel lock does.</summary>
    SharedChannel,

    /// <summary>Even publishers share channel 1 (serialized); odd publishers get their own channel.</summary>
    Mixed,
}
