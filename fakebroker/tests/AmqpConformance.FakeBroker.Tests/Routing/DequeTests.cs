namespace AmqpConformance.FakeBroker.Tests.Routing;

/// <summary>The ring a queue keeps its ready messages in, against <see cref="LinkedList{T}"/> as the model.</summary>
public sealed class DequeTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Matches_a_linked_list_through_random_adds_at_both_ends_takes_and_clears(int seed)
    {
        var random = new Random(seed);
        var deque = new Deque<int>();
        var model = new LinkedList<int>();
        for (int step = 0; step < 20_000; step++)
        {
            int op = random.Next(100);
            if (op < 45) { deque.AddLast(step); model.AddLast(step); }
            else if (op < 60) { deque.AddFirst(step); model.AddFirst(step); }
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
            else { deque.Clear(); model.Clear(); }
            Assert.Equal(model.Count, deque.Count);
            if (step % 97 == 0) Assert.Equal(model, Items(deque)); // wrapped or not, front to back
        }
        Assert.Equal(model, Items(deque));
    }

    [Fact]
    public void Items_taken_or_cleared_are_not_kept_alive()
    {
        var deque = new Deque<object>();
        var (taken, cleared) = Fill(deque);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.All(taken, w => Assert.False(w.IsAlive, "the ring kept a taken item alive"));
        Assert.All(cleared, w => Assert.False(w.IsAlive, "the ring kept a cleared item alive"));
    }

    /// <summary>Adds six objects, three at the front (so the head wraps round the array), takes two and clears the rest;
    /// returns weak references to both groups. Not inlined, so no local keeps them alive.</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static (List<WeakReference> Taken, List<WeakReference> Cleared) Fill(Deque<object> deque)
    {
        var all = new List<WeakReference>();
        for (int i = 0; i < 6; i++)
        {
            var o = new object();
            all.Add(new WeakReference(o));
            if (i % 2 == 0) deque.AddLast(o);
            else deque.AddFirst(o);
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

    private static List<int> Items(Deque<int> deque)
    {
        var items = new List<int>();
        foreach (int item in deque) items.Add(item);
        return items;
    }
}
