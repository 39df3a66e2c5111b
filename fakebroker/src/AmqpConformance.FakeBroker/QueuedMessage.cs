namespace AmqpConformance.FakeBroker;

/// <summary>A message waiting in a queue (or out for delivery): its parts, the instance it was enqueued as when one was
/// made (<see cref="BrokerConnection.Published"/> keeps it, or a caller enqueued one), whether it was delivered before,
/// and the pooled array behind its body when it has one (<see cref="PooledBody"/>: shared by every queue the message is
/// in). A value: a queue holds it in its ring, with no object per message.</summary>
internal readonly record struct QueuedMessage(
    MessageParts Parts,
    DeliveredMessage? Shared,
    bool Redelivered,
    PooledBody? Storage = null
)
{
    /// <summary>The message as a reader outside the queue gets it: <see cref="Shared"/>, else a new instance of its
    /// parts (equal by value to any other built from them).</summary>
    public DeliveredMessage Message => Shared ?? new DeliveredMessage(Parts);
}

/// <summary>A delivery waiting for basic.ack / nack / reject on its channel.</summary>
internal sealed record UnackedDelivery(QueuedMessage Entry, BrokerQueue Queue, Consumer? Consumer);
