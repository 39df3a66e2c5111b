namespace AmqpConformance.FakeBroker;

/// <summary>A message waiting in a queue (or out for delivery), and whether it was delivered before.</summary>
internal sealed record QueuedMessage(DeliveredMessage Message, bool Redelivered);

/// <summary>A delivery waiting for basic.ack / nack / reject on its channel.</summary>
internal sealed record UnackedDelivery(QueuedMessage Entry, BrokerQueue Queue, Consumer? Consumer);
