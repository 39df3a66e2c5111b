using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Bodies;

/// <summary>When a queued message's pooled body array goes back to the pool (<see cref="PooledBody"/>): only once every
/// queue holding it dropped it unread, and never after anything outside the queues could read it. Driven on a virtual
/// host directly, with a pool of its own, so that no other test's broker takes the array meanwhile.</summary>
public sealed class PooledBodyTests
{
    private const int Length = 256 * 1024;
    private readonly BodyPool _pool = new(retainedLimit: 64 * 1024 * 1024);
    private readonly VirtualHost _host = new("/");

    private BrokerQueue Declare(string name)
    {
        _host.DeclareQueue(new QueueDeclare { Queue = name }, connectionId: 1);
        return _host.FindQueue(name)!;
    }

    /// <summary>Enqueues a message whose body is a pooled array filled with <paramref name="fill"/>; returns the
    /// array.</summary>
    private byte[] Publish(byte fill, params BrokerQueue[] queues)
    {
        byte[] array = _pool.Rent(Length);
        array.AsSpan().Fill(fill);
        var message = StoredMessages.To(queues[0].Name, array.AsMemory(0, Length - 1));
        _host.Enqueue(message, queues, new PooledBody(array, _pool));
        return array;
    }

    [Fact]
    public void A_purged_body_nobody_saw_goes_back_to_the_pool_and_is_rented_again()
    {
        var queue = Declare("q");
        byte[] array = Publish(0xA1, queue);
        Assert.Equal(0, _pool.Retained);

        Assert.Equal(1u, _host.PurgeQueue("q", connectionId: 1));
        Assert.Equal(array.Length, _pool.Retained);
        Assert.Same(array, _pool.Rent(Length));
    }

    [Fact]
    public void Deleting_the_queue_returns_its_unread_bodies()
    {
        var queue = Declare("q");
        byte[] first = Publish(1, queue);
        byte[] second = Publish(2, queue);

        _host.DeleteQueue("q", ifUnused: false, ifEmpty: false, connectionId: 1);

        Assert.Equal(first.Length + second.Length, _pool.Retained);
        Assert.Equal(0, queue.MessageCount); // the deleted queue holds nothing that could point into reused memory
    }

    [Fact]
    public void A_body_read_through_ReadyMessages_is_never_reused_and_keeps_its_bytes()
    {
        var queue = Declare("q");
        Publish(0xA1, queue);
        DeliveredMessage seen = queue.ReadyMessages()[0];

        _host.PurgeQueue("q", connectionId: 1);
        Assert.Equal(0, _pool.Retained);
        Publish(0xB2, queue); // a new array: the seen one was not handed out again

        Assert.True(
            seen.Body.Span.IndexOfAnyExcept((byte)0xA1) < 0,
            "a body handed out was overwritten by a later publish"
        );
    }

    [Fact]
    public void A_body_taken_out_for_delivery_is_never_returned_even_if_requeued_and_purged()
    {
        var queue = Declare("q");
        Publish(0xA1, queue);
        Assert.True(queue.TryDequeue(out QueuedMessage delivered)); // what dispatch and basic.get do
        queue.Requeue(delivered); // a nack with requeue, or the channel closing

        _host.PurgeQueue("q", connectionId: 1);

        Assert.Equal(0, _pool.Retained);
        Assert.True(delivered.Storage!.Escaped);
        Assert.True(delivered.Message.Body.Span.IndexOfAnyExcept((byte)0xA1) < 0);
    }

    [Fact]
    public void A_body_in_two_queues_returns_only_when_both_dropped_it()
    {
        var a = Declare("a");
        var b = Declare("b");
        byte[] array = Publish(7, a, b);

        _host.PurgeQueue("a", connectionId: 1);
        Assert.Equal(0, _pool.Retained); // still ready in b

        _host.DeleteQueue("b", ifUnused: false, ifEmpty: false, connectionId: 1);
        Assert.Equal(array.Length, _pool.Retained);
    }

    [Fact]
    public void A_body_routed_only_to_queues_deleted_meanwhile_goes_straight_back()
    {
        var queue = Declare("q");
        _host.DeleteQueue("q", ifUnused: false, ifEmpty: false, connectionId: 1);

        byte[] array = Publish(3, queue); // routed before the delete, enqueued after it

        Assert.Equal(array.Length, _pool.Retained);
    }
}
