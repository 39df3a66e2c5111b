namespace AmqpConformance.FakeBroker;

/// <summary>Thrown inside a connection's loop when a frame breaks a rule: the loop catches it, records a finding
/// under <see cref="Rule"/>, and closes the connection (or only the channel, when <see cref="ChannelOnly"/>).</summary>
internal sealed class ProtocolViolationException : Exception
{
    public ProtocolViolationException(
        ushort replyCode,
        string rule,
        string explanation,
        ushort? classId = null,
        ushort? methodId = null,
        bool channelOnly = false,
        bool lostSync = false,
        bool closeSocketOnly = false
    )
        : base(ReplyCodes.NameOf(replyCode) + " - " + explanation)
    {
        ReplyCode = replyCode;
        Rule = rule;
        ClassId = classId;
        MethodId = methodId;
        ChannelOnly = channelOnly;
        LostSync = lostSync;
        CloseSocketOnly = closeSocketOnly;
    }

    /// <summary>The reply code of the connection.close or channel.close.</summary>
    public ushort ReplyCode { get; }

    /// <summary>The finding's rule name.</summary>
    public string Rule { get; }

    /// <summary>Class id of the offending method; null means "the method being handled" (0 when none is).</summary>
    public ushort? ClassId { get; }

    /// <summary>Method id of the offending method; null means "the method being handled" (0 when none is).</summary>
    public ushort? MethodId { get; }

    /// <summary>A soft error: close the channel, keep the connection.</summary>
    public bool ChannelOnly { get; }

    /// <summary>The frame stream cannot be parsed past this point (bad frame end, oversized frame): after the
    /// connection.close goes out, no further frame is read.</summary>
    public bool LostSync { get; }

    /// <summary>Close the socket without a connection.close (what RabbitMQ 3.x does in this case).</summary>
    public bool CloseSocketOnly { get; }

    /// <summary>The reply text, "CODE_NAME - explanation".</summary>
    public string ReplyText => Message;
}
