namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>How a server answered a case, reduced to what must match between RabbitMQ and the fake broker: the kind of
/// answer and, for a close, the reply code and the failing class/method ids (reply texts differ and are only
/// shown).</summary>
internal sealed record ParityAnswer(
    ParityAnswerKind Kind,
    int ReplyCode = 0,
    int ClassId = 0,
    int MethodId = 0,
    string Detail = ""
)
{
    /// <summary>Equality on the parts that must match; <see cref="Detail"/> is for reading only.</summary>
    public bool SameAs(ParityAnswer other) =>
        Kind == other.Kind && ReplyCode == other.ReplyCode && ClassId == other.ClassId && MethodId == other.MethodId;

    public override string ToString() =>
        Kind switch
        {
            ParityAnswerKind.ConnectionClose or ParityAnswerKind.ChannelClose =>
                $"{Kind} {ReplyCode} ({ClassId}/{MethodId}) \"{Detail}\"",
            _ => $"{Kind}{(Detail.Length > 0 ? $" ({Detail})" : "")}",
        };
}
