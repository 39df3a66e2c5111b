namespace AmqpConformance.FakeBroker;

/// <summary>A message waiting in a queue (or out for delivery), whether it was delivered before, and the pooled array
/// behind its body when it has one (<see cref="PooledBody"/>: shared by every queue the message is in). A value: a
/// queue holds it in its ring, with no object per message beyond the message itself.</summary>
internal readonly record struct QueuedMessage(DeliveredMessage Message, bool Redelivered, PooledBody? Storage = null);

/// <summary>A delivery waiting for basic.ack / nack / reject on its channel.</summary>
internal sealed record UnackedDelivery(QueuedMessage Entry, BrokerQueue Queue, Consumer? Consumer);
