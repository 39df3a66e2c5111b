namespace AmqpConformance.FakeBroker;

/// <summary>Everything a stored message is: what it shares with its channel's other publishes
/// (<see cref="PublishOrigin"/>), its content header (<see cref="ContentHead"/>, shared while repeated), its body, its
/// confirm sequence number (meaningful when <see cref="PublishOrigin.Confirming"/>) and the frame-log sequence number of
/// its basic.publish. A value: a queue keeps these in its ring (<see cref="QueuedMessage"/>) with no object per message,
/// and a <see cref="DeliveredMessage"/> is built around them only when somebody outside the queues reads the message. Equal
/// when every part is (the origin and head by value, the body as the same memory).</summary>
internal readonly record struct MessageParts(
    PublishOrigin Origin,
    ContentHead Head,
    ReadOnlyMemory<byte> Body,
    ulong ConfirmSequence,
    long MethodSequence
)
{
    /// <summary>The start of a message built from its properties, before its initializer sets them.</summary>
    public static MessageParts Unset => new(PublishOrigin.Unset, ContentHead.Unset, ReadOnlyMemory<byte>.Empty, 0, 0);
}
