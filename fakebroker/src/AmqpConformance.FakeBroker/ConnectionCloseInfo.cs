namespace AmqpConformance.FakeBroker;

/// <summary>How a connection ended.</summary>
/// <param name="Initiator">Who ended it.</param>
/// <param name="ReplyCode">The connection.close reply code (200 for a normal close); 0 when the socket was closed
/// without a connection.close.</param>
/// <param name="ReplyText">The reply text, or a description of why the socket was closed.</param>
/// <param name="ClassId">The class id of the method that caused the close (0 when none).</param>
/// <param name="MethodId">The method id of the method that caused the close (0 when none).</param>
public sealed record ConnectionCloseInfo(
    CloseInitiator Initiator,
    ushort ReplyCode,
    string ReplyText,
    ushort ClassId,
    ushort MethodId
)
{
    /// <inheritdoc/>
    public override string ToString() => $"{Initiator} {ReplyCode} {ReplyText} ({ClassId}/{MethodId})";
}
