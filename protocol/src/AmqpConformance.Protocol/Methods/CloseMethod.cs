namespace AmqpConformance.Protocol;

/// <summary>The arguments connection.close (<see cref="ConnectionClose"/>) and channel.close
/// (<see cref="ChannelClose"/>) share: why the peer closes and which method caused it. Match on it to handle either
/// close.</summary>
public abstract record CloseMethod : AmqpMethod
{
    private protected CloseMethod() { }

    /// <summary>Reply code (e.g. 200 for a normal close, 404 not found, 406 precondition failed). Wire type:
    /// short.</summary>
    public ushort ReplyCode { get; init; }

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string ReplyText { get; init; } = "";

    /// <summary>Class id of the method that caused the close; 0 if none. Wire type: short.</summary>
    [SpecName("class-id")]
    public ushort FailingClassId { get; init; }

    /// <summary>Method id of the method that caused the close; 0 if none. Wire type: short.</summary>
    [SpecName("method-id")]
    public ushort FailingMethodId { get; init; }
}
