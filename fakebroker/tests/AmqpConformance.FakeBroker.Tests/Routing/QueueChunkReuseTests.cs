using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>A deleted queue's ready-message chunks go to the pool its virtual host's queues share, and the next queue
/// fills them instead of allocating its own. Driven on a virtual host with a pool of its own, so no other test's queues
/// take or give chunks meanwhile.</summary>
public sealed class QueueChunkReuseTests
{
    private readonly DequeChunkPool<QueuedMessage> _pool = new(Deque<QueuedMessage>.DefaultChunkLength, limit: 8);
    private readonly VirtualHost _host;

    public QueueChunkReuseTests() => _host = new VirtualHost("/", _pool);

    private BrokerQueue Declare(string name)
    {
        _host.DeclareQueue(new QueueDeclare { Queue = name }, connectionId: 1);
        return _host.FindQueue(name)!;
    }

    private void Publish(BrokerQueue queue, int count)
    {
        for (int i = 0; i < count; i++)
            _host.Enqueue(StoredMessages.To(queue.Name, new byte[] { (byte)i }, i), queue.AsRoute, storage: null);
    }

    [Fact]
    public void Deleting_a_queue_gives_its_chunks_to_the_next_queue()
    {
        var first = Declare("first");
        // Six chunks: more than a deque keeps as spares of its own when it is cleared, so a deletion that cleared the
        // queue before giving its chunks away would hand on only those.
        Publish(first, (Deque<QueuedMessage>.KeptSpares + 1) * Deque<QueuedMessage>.DefaultChunkLength + 1);
        Assert.Equal(0, _pool.Count);

        _host.DeleteQueue("first", ifUnused: false, ifEmpty: false, connectionId: 1);
        Assert.Equal(Deque<QueuedMessage>.KeptSpares + 2, _pool.Count);

        var second = Declare("second");
        Publish(second, 3);
        Assert.Equal(Deque<QueuedMessage>.KeptSpares + 1, _pool.Count); // its first chunk came from the pool
        Assert.Equal(3, second.MessageCount);
        Assert.Equal([0, 1, 2], second.ReadyMessages().Select(m => (int)m.Body.Span[0]));
    }

    [Fact]
    public void Deleting_a_queue_still_returns_its_unread_pooled_bodies()
    {
        var bodies = new BodyPool(retainedLimit: 64 * 1024 * 1024);
        var queue = Declare("q");
        byte[] array = bodies.Rent(BodyPool.MinimumPooledLength);
        _host.Enqueue(StoredMessages.To("q", array), queue.AsRoute, new PooledBody(array, bodies));

        _host.DeleteQueue("q", ifUnused: false, ifEmpty: false, connectionId: 1);

        Assert.Equal(array.Length, bodies.Retained);
        Assert.Equal(1, _pool.Count);
    }

    [Fact]
    public void Purging_keeps_the_chunks_with_the_queue()
    {
        var queue = Declare("q");
        Publish(queue, 10);
        _host.PurgeQueue("q", connectionId: 1);
        Assert.Equal(0, _pool.Count); // a purged queue lives on and refills its own chunk
        Publish(queue, 1);
        Assert.Equal(1, queue.MessageCount);
    }
}
