namespace AmqpConformance.Protocol.Recording;

/// <summary>Something the broker's validation flagged on a connection: a violation that closed it
/// (RabbitMQ-compatible) or one that only the strict profile reports.</summary>
/// <param name="Sequence">The <see cref="FrameRecord.Sequence"/> of the offending frame, or -1 when none.</param>
/// <param name="ReplyCode">The AMQP reply code it maps to (501, 503, 504, 505, 404, ...).</param>
/// <param name="Rule">A stable short name, such as "body-exceeds-declared-size" or "content-interleaved".</param>
/// <param name="Message">A sentence a person can act on.</param>
/// <param name="ClosedConnection">True when the broker closed the connection (or channel) for it; false when only
/// reported.</param>
public sealed record ProtocolFinding(long Sequence, int ReplyCode, string Rule, string Message, bool ClosedConnection);
