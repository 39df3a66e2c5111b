using System.Runtime.InteropServices;
using AmqpConformance.FakeBroker.Tests.Support;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Bodies;

/// <summary>When a full-length <see cref="BodySlab"/> goes back to its pool: only once the connection stopped filling it
/// (<see cref="BodySlab.Retire"/> or the next slab) and every queue dropped every message in it unread, and never after
/// one of them could be read outside the queues or was kept unpoolable. Driven on a virtual host directly, with a pool
/// of its own, so that no other test's broker takes the slab meanwhile.</summary>
public sealed class PooledSlabTests
{
    private const int BodyLength = 256;
    private readonly BodyPool _pool = new(retainedLimit: 16 * 1024 * 1024, pinned: true);
    private readonly VirtualHost _host = new("/");

    private BrokerQueue Declare(string name)
    {
        _host.DeclareQueue(new QueueDeclare { Queue = name }, connectionId: 1);
        return _host.FindQueue(name)!;
    }

    /// <summary>Keeps unpoolable 4 KiB bodies until the slabs that double up to full length are used up, so the next
    /// body opens a pooled slab.</summary>
    private static void FillShortSlabs(BodySlab slab)
    {
        int room = 0;
        for (int length = BodySlab.FirstSlabLength; length < BodySlab.MaxSlabLength; length *= 2)
            room += length;
        for (int kept = 0; kept < room; kept += BodySlab.MaxBodyLength)
            slab.Keep(new byte[BodySlab.MaxBodyLength]);
    }

    /// <summary>Keeps a body filled with <paramref name="fill"/> in <paramref name="slab"/> and enqueues it on
    /// <paramref name="queues"/>, as the connection does; returns the stored message and its storage.</summary>
    private (DeliveredMessage Message, PooledBody? Storage) Publish(
        BodySlab slab,
        byte fill,
        bool poolable,
        params BrokerQueue[] queues
    )
    {
        var bytes = new byte[BodyLength];
        bytes.AsSpan().Fill(fill);
        var body = slab.Keep(bytes, poolable, out PooledBody? storage);
        var message = StoredMessages.To(queues[0].Name, body);
        _host.Enqueue(message, queues, storage);
        return (message, storage);
    }

    private static byte[] ArrayOf(ReadOnlyMemory<byte> memory)
    {
        Assert.True(MemoryMarshal.TryGetArray(memory, out ArraySegment<byte> segment));
        return segment.Array!;
    }

    [Fact]
    public void Short_slabs_are_not_pooled_and_a_full_length_one_comes_from_the_pool()
    {
        var queue = Declare("q");
        var (early, earlyStorage) = Publish(new BodySlab(_pool), 0x11, poolable: true, queue);
        Assert.Null(earlyStorage);
        Assert.Equal(BodySlab.FirstSlabLength, ArrayOf(early.Body).Length);

        var slab = new BodySlab(_pool);
        FillShortSlabs(slab);
        var (message, storage) = Publish(slab, 0x22, poolable: true, queue);

        Assert.NotNull(storage);
        Assert.False(storage.Escaped);
        Assert.Equal(BodySlab.MaxSlabLength, ArrayOf(message.Body).Length);
    }

    [Fact]
    public void A_slab_goes_back_when_its_queue_is_deleted_and_the_connection_retired_it_and_is_rented_again()
    {
        var slab = new BodySlab(_pool);
        var queue = Declare("q");
        FillShortSlabs(slab);
        var (first, _) = Publish(slab, 0x11, poolable: true, queue);
        Publish(slab, 0x22, poolable: true, queue);
        byte[] array = ArrayOf(first.Body);

        _host.DeleteQueue("q", ifUnused: false, ifEmpty: false, connectionId: 1);
        Assert.Equal(0, _pool.Retained); // the connection may still append to it

        slab.Retire();
        Assert.Equal(array.Length, _pool.Retained);
        var next = new BodySlab(_pool);
        FillShortSlabs(next);
        var (reused, _) = Publish(next, 0x33, poolable: true, Declare("q2"));
        Assert.Same(array, ArrayOf(reused.Body));
    }

    [Fact]
    public void A_retired_slab_waits_for_its_queue_to_drop_the_messages()
    {
        var slab = new BodySlab(_pool);
        var queue = Declare("q");
        FillShortSlabs(slab);
        Publish(slab, 0x11, poolable: true, queue);

        slab.Retire();
        Assert.Equal(0, _pool.Retained); // the queue still holds a message in it

        Assert.Equal(1u, _host.PurgeQueue("q", connectionId: 1));
        Assert.Equal(BodySlab.MaxSlabLength, _pool.Retained);
    }

    [Fact]
    public void Starting_the_next_slab_lets_go_of_the_full_one()
    {
        var slab = new BodySlab(_pool);
        var queue = Declare("q");
        FillShortSlabs(slab);
        var (first, _) = Publish(slab, 0x11, poolable: true, queue);
        _host.PurgeQueue("q", connectionId: 1);
        Assert.Equal(0, _pool.Retained);

        ReadOnlyMemory<byte> last = default;
        for (int i = 0; i < BodySlab.MaxSlabLength / BodyLength; i++) // fills the slab and opens the next
            last = slab.Keep(new byte[BodyLength], poolable: true, out _);

        // The full slab went back when the next one started, and the next one was rented from the pool: the same array.
        Assert.Same(ArrayOf(first.Body), ArrayOf(last));
        Assert.Equal(0, _pool.Retained);
    }

    [Fact]
    public void A_slab_one_of_whose_messages_was_read_is_never_reused_and_keeps_its_bytes()
    {
        var slab = new BodySlab(_pool);
        var queue = Declare("q");
        FillShortSlabs(slab);
        Publish(slab, 0x11, poolable: true, queue);
        Publish(slab, 0x22, poolable: true, queue);
        DeliveredMessage seen = queue.ReadyMessages()[1];

        _host.PurgeQueue("q", connectionId: 1);
        slab.Retire();

        Assert.Equal(0, _pool.Retained);
        Assert.True(seen.Body.Span.IndexOfAnyExcept((byte)0x22) < 0);
    }

    [Fact]
    public void A_body_kept_unpoolable_makes_its_slab_escape()
    {
        var slab = new BodySlab(_pool);
        var queue = Declare("q");
        FillShortSlabs(slab);
        var (_, pooled) = Publish(slab, 0x11, poolable: true, queue);
        var (_, unpooled) = Publish(slab, 0x22, poolable: false, queue); // kept in Published, or returned

        Assert.NotNull(pooled);
        Assert.Null(unpooled);
        Assert.True(pooled.Escaped);
        _host.PurgeQueue("q", connectionId: 1);
        slab.Retire();
        Assert.Equal(0, _pool.Retained);
    }

    [Fact]
    public void A_slab_whose_message_is_in_two_queues_returns_only_when_both_dropped_it()
    {
        var slab = new BodySlab(_pool);
        var a = Declare("a");
        var b = Declare("b");
        FillShortSlabs(slab);
        Publish(slab, 0x11, poolable: true, a, b);
        slab.Retire();

        _host.PurgeQueue("a", connectionId: 1);
        Assert.Equal(0, _pool.Retained);
        _host.PurgeQueue("b", connectionId: 1);
        Assert.Equal(BodySlab.MaxSlabLength, _pool.Retained);
    }
}
