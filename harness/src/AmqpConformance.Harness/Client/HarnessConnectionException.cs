namespace AmqpConformance.Harness.Client;

/// <summary>The harness client's connection or channel failed: the broker closed it (with <see cref="ReplyCode"/> and
/// <see cref="ReplyText"/>), the transport ended, or the broker sent something the client cannot read.</summary>
public sealed class HarnessConnectionException : IOException
{
    /// <summary>Creates the exception.</summary>
    public HarnessConnectionException(
        string message,
        Exception? innerException = null,
        ushort? replyCode = null,
        string? replyText = null
    )
        : base(message, innerException)
    {
        ReplyCode = replyCode;
        ReplyText = replyText;
    }

    /// <summary>The reply code of the broker's connection.close or channel.close, if that is how it ended.</summary>
    public ushort? ReplyCode { get; }

    /// <summary>The reply text of the broker's connection.close or channel.close, if that is how it ended.</summary>
    public string? ReplyText { get; }
}
