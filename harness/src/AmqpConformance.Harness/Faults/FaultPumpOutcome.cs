namespace AmqpConformance.Harness.Faults;

/// <summary>Why a <see cref="FaultPump"/> stopped.</summary>
public enum FaultPumpOutcome
{
    /// <summary>The sender completed its stream normally; everything was passed on (then end of stream).</summary>
    SourceEnded,

    /// <summary>The sender completed its stream with an exception (see <see cref="FaultPump.SourceError"/>).</summary>
    SourceFailed,

    /// <summary>The receiving side stopped reading (its reader completed, or writing to it failed).</summary>
    SinkEnded,

    /// <summary>The connection was terminated (reset or closed) by a fault of either direction, or disposed.</summary>
    Terminated,
}
