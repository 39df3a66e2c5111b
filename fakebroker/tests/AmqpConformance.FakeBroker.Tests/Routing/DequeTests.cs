using AmqpConformance.FakeBroker.Tests.Support;

namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>The chunked deque a queue keeps its ready messages in, against <see cref="LinkedList{T}"/> as the model;
/// small chunks make every operation cross chunk boundaries often.</summary>
public sealed class DequeTests
{
    [Theory]
    [InlineData(1, 1)]
    [InlineData(2, 3)]
    [InlineData(3, 16)]
    [InlineData(4, Deque<int>.DefaultChunkLength)]
    public void Matches_a_linked_list_through_random_adds_at_both_ends_takes_and_clears(int seed, int chunkLength)
    {
        var random = new Random(seed);
        var deque = new Deque<int>(chunkLength);
        var model = new LinkedList<int>();
        for (int step = 0; step < 20_000; step++)
        {
            int op = random.Next(100);
            if (op < 45)
            {
                deque.AddLast(step);
                model.AddLast(step);
            }
            else if (op < 60)
            {
                deque.AddFirst(step);
                model.AddFirst(step);
            }
            else if (op < 99)
            {
                bool took = deque.TryRemoveFirst(out int item);
                Assert.Equal(model.Count > 0, took);
                if (took)
                {
                    Assert.Equal(model.First!.Value, item);
                    model.RemoveFirst();
                }
            }
            else
            {
                deque.Clear();
                model.Clear();
            }
            Assert.Equal(model.Count, deque.Count);
            if (step % 97 == 0)
                Assert.Equal(model, Items(deque)); // wrapped or not, front to back
        }
        Assert.Equal(model, Items(deque));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(Deque<object>.DefaultChunkLength)]
    public void Items_taken_or_cleared_are_not_kept_alive(int chunkLength)
    {
        var deque = new Deque<object>(chunkLength);
        var (taken, cleared) = Fill(deque);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.All(taken, w => Assert.False(w.IsAlive, "the ring kept a taken item alive"));
        Assert.All(cleared, w => Assert.False(w.IsAlive, "the ring kept a cleared item alive"));
    }

    /// <summary>Adds six objects, three at the front (so the head wraps round the array), takes two and clears the
    /// rest; returns weak references to both groups. Not inlined, so no local keeps them alive.</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static (List<WeakReference> Taken, List<WeakReference> Cleared) Fill(Deque<object> deque)
    {
        var all = new List<WeakReference>();
        for (int i = 0; i < 6; i++)
        {
            var o = new object();
            all.Add(new WeakReference(o));
            if (i % 2 == 0)
                deque.AddLast(o);
            else
                deque.AddFirst(o);
        }
        var taken = new List<WeakReference>();
        for (int i = 0; i < 2; i++)
        {
            Assert.True(deque.TryRemoveFirst(out var item));
            taken.Add(all.Single(w => ReferenceEquals(w.Target, item)));
        }
        deque.Clear();
        Assert.Equal(0, deque.Count);
        return (taken, [.. all.Except(taken)]);
    }

    [Fact]
    public void Filling_and_draining_in_turn_allocates_nothing_once_warm()
    {
        var deque = new Deque<long>(chunkLength: 64);
        Cycle(deque);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 100; i++)
            Cycle(deque);
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);

        static void Cycle(Deque<long> deque)
        {
            for (int i = 0; i < 64 * Deque<long>.KeptSpares; i++)
                deque.AddLast(i); // as many chunks as are kept spare, drained chunk by chunk
            while (deque.TryRemoveFirst(out _)) { }
        }
    }

    [Fact]
    public void Chunks_a_deque_releases_go_to_its_pool_and_fill_the_next_deque()
    {
        var pool = new DequeChunkPool<int>(chunkLength: 4, limit: 16);
        var first = new Deque<int>(pool);
        for (int i = 0; i < 10; i++)
            first.AddLast(i); // three chunks in use
        Assert.Equal(0, pool.Count);

        first.ReleaseChunks();
        Assert.Equal(0, first.Count);
        Assert.Equal(3, pool.Count);

        var second = new Deque<int>(pool);
        for (int i = 0; i < 12; i++)
            second.AddLast(100 + i); // three chunks again: all taken from the pool
        Assert.Equal(0, pool.Count);
        Assert.Equal(Enumerable.Range(100, 12), Items(second));

        first.AddLast(7); // a released deque stays usable, starting over
        Assert.Equal([7], Items(first));
    }

    [Fact]
    public void A_pool_keeps_at_most_its_limit_of_chunks()
    {
        var pool = new DequeChunkPool<int>(chunkLength: 2, limit: 3);
        var deque = new Deque<int>(pool);
        for (int i = 0; i < 20; i++)
            deque.AddLast(i); // ten chunks
        deque.ReleaseChunks();
        Assert.Equal(3, pool.Count);
        Assert.Throws<ArgumentException>(() => pool.Give(new int[5]));
    }

    [Fact]
    public void A_full_collection_drops_the_free_chunks_of_a_pool_that_sat_unused()
    {
        var pool = new DequeChunkPool<int>(chunkLength: 2, limit: 16, idleBeforeTrim: TimeSpan.Zero);
        var deque = new Deque<int>(pool);
        for (int i = 0; i < 6; i++)
            deque.AddLast(i);
        deque.ReleaseChunks();
        Assert.Equal(3, pool.Count);

        Gen2Trims.CollectUntil(() => pool.Count == 0);

        Assert.Equal(0, pool.Count);
    }

    [Fact]
    public void A_pool_in_use_keeps_its_free_chunks_through_a_trim()
    {
        var pool = new DequeChunkPool<int>(chunkLength: 2, limit: 16, idleBeforeTrim: TimeSpan.FromDays(1));
        pool.Give(new int[2]);

        Assert.False(pool.TrimIfIdle());
        Assert.Equal(1, pool.Count);
    }

    [Fact]
    public void Items_of_released_chunks_are_not_kept_alive_by_the_pool()
    {
        var pool = new DequeChunkPool<object>(chunkLength: 2, limit: 16);
        var deque = new Deque<object>(pool);
        var held = FillAndRelease(deque);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.Equal(3, pool.Count);
        Assert.All(held, w => Assert.False(w.IsAlive, "a pooled chunk kept an item alive"));
    }

    /// <summary>Adds five objects (three chunks of two, one at the front) and releases the deque's chunks; returns weak
    /// references to the objects. Not inlined, so no local keeps them alive.</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static List<WeakReference> FillAndRelease(Deque<object> deque)
    {
        var all = new List<WeakReference>();
        for (int i = 0; i < 5; i++)
        {
            var o = new object();
            all.Add(new WeakReference(o));
            if (i == 2)
                deque.AddFirst(o);
            else
                deque.AddLast(o);
        }
        deque.ReleaseChunks();
        return all;
    }

    private static List<int> Items(Deque<int> deque)
    {
        var items = new List<int>();
        foreach (int item in deque)
            items.Add(item);
        return items;
    }
}
