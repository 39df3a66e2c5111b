namespace AmqpConformance.Protocol;

/// <summary>The arguments connection.tune (<see cref="ConnectionTune"/>, the server's offer) and connection.tune-ok
/// (<see cref="ConnectionTuneOk"/>, the client's choice) share.</summary>
public abstract record TuneMethod : AmqpMethod
{
    private protected TuneMethod() { }

    /// <summary>Highest usable channel number (0 = no limit). Wire type: short.</summary>
    public ushort ChannelMax { get; init; }

    /// <summary>Largest frame size in bytes, header and end octet included (0 = no limit). Wire type: long.</summary>
    public uint FrameMax { get; init; }

    /// <summary>Heartbeat interval in seconds (0 = none). Wire type: short.</summary>
    public ushort Heartbeat { get; init; }
}
