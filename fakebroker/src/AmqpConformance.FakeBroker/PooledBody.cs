namespace AmqpConformance.FakeBroker;

/// <summary>
/// The pooled array behind one routed message's <see cref="DeliveredMessage.Body"/>, and when it may go back to
/// <see cref="BodyPool"/>. The rule is conservative: the array is returned only when every queue that held the message
/// dropped it unread (purged, or the queue deleted, which includes an exclusive queue whose connection ended) and the
/// message never left the broker's hands. It <em>escapes</em> (and then simply stays the message's, for the garbage
/// collector to take when nothing refers to it) as soon as anything outside the queues could read it: a delivery to a
/// consumer or through basic.get (the send loop and the client read it; an unacked delivery can come back),
/// <see cref="BrokerQueue.ReadyMessages"/> (the caller holds the messages), <see cref="BrokerConnection.Published"/>
/// (such messages get no pooled body at all), or a basic.return (likewise). So a <see cref="DeliveredMessage"/> anybody
/// was handed keeps valid bytes for as long as they hold it.
/// </summary>
/// <remarks>A message's holds, escapes and releases happen under the virtual host's <see cref="VirtualHost.Gate"/>,
/// which also guards every queue and every way out of one. One holder works outside it: the connection's
/// <see cref="BodySlab"/> holds the storage of the slab it is still filling, and releases it from its receive loop when
/// it starts the next slab or the connection ends. So the count and the flag are atomic: an escape always happens while
/// a queue still holds the message, so the count cannot reach zero before the escape is visible.</remarks>
internal sealed class PooledBody
{
    private byte[]? _array;
    private int _holders;
    private volatile bool _escaped;

    /// <summary>Takes ownership of <paramref name="array"/>, rented from <paramref name="pool"/>.</summary>
    public PooledBody(byte[] array, BodyPool pool)
    {
        _array = array;
        Pool = pool;
    }

    /// <summary>Where the array goes back to.</summary>
    public BodyPool Pool { get; }

    /// <summary>Whether the array escaped and will never be returned.</summary>
    public bool Escaped => _escaped;

    /// <summary>One more holder (a queue took the message, or the router holds it while enqueueing).</summary>
    public void Hold() => Interlocked.Increment(ref _holders);

    /// <summary>Somebody outside the queues may read the body: the array stays the message's for good.</summary>
    public void Escape() => _escaped = true;

    /// <summary>A holder dropped the message unread; the last one to do so returns the array, unless it
    /// escaped.</summary>
    public void Release()
    {
        if (Interlocked.Decrement(ref _holders) > 0 || _escaped)
            return;
        if (Interlocked.Exchange(ref _array, null) is { } array)
            Pool.Return(array);
    }
}
