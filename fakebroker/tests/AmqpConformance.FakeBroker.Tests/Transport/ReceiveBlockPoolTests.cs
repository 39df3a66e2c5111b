namespace AmqpConformance.FakeBroker.Tests.Transport;

/// <summary><see cref="ReceiveBlockPool"/>: fixed-size blocks out of a <see cref="BodyPool"/>, given back once however
/// often their owner is disposed, counted while out, and handed out by owner objects that are reused.</summary>
public sealed class ReceiveBlockPoolTests
{
    [Fact]
    public void A_block_is_a_body_pool_array_of_the_block_size_and_goes_back_to_that_pool_when_disposed()
    {
        var source = new BodyPool(retainedLimit: 4 * 1024 * 1024);
        var pool = new ReceiveBlockPool(source);

        var block = pool.Rent(100);
        Assert.Equal(ReceiveBlockPool.BlockSize, block.Memory.Length);
        Assert.Equal(1, pool.Outstanding);
        Assert.Equal(0, source.Retained);

        block.Dispose();
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(ReceiveBlockPool.BlockSize, source.Retained);
        Assert.Throws<ObjectDisposedException>(() => block.Memory);
    }

    [Fact]
    public void Disposing_a_block_twice_gives_it_back_once()
    {
        var source = new BodyPool(retainedLimit: 4 * 1024 * 1024);
        var pool = new ReceiveBlockPool(source);
        var first = pool.Rent();
        var second = pool.Rent();

        first.Dispose();
        first.Dispose();

        Assert.Equal(1, pool.Outstanding);
        Assert.Equal(ReceiveBlockPool.BlockSize, source.Retained); // one array in the pool, not the same one twice
        Assert.Equal(ReceiveBlockPool.BlockSize, second.Memory.Length);
    }

    [Fact]
    public void A_request_larger_than_a_block_is_refused_with_the_limit()
    {
        var pool = new ReceiveBlockPool(new BodyPool(0));
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent(ReceiveBlockPool.BlockSize + 1));
        Assert.Contains(
            ReceiveBlockPool.BlockSize.ToString(System.Globalization.CultureInfo.InvariantCulture),
            e.Message
        );
        Assert.Equal(ReceiveBlockPool.BlockSize, pool.MaxBufferSize);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void Renting_and_giving_back_allocates_nothing_once_warm_and_hands_out_the_same_owner_with_a_live_block()
    {
        var source = new BodyPool(retainedLimit: 4 * 1024 * 1024);
        var pool = new ReceiveBlockPool(source);
        var first = pool.Rent();
        first.Dispose();

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            var block = pool.Rent();
            block.Memory.Span[0] = (byte)i;
            block.Dispose();
        }
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(0, allocated);
        var again = pool.Rent();
        Assert.Same(first, again); // the owner came back from the free list ...
        Assert.Equal(ReceiveBlockPool.BlockSize, again.Memory.Length); // ... holding a block again, not the given-back state
        Assert.Equal(1, pool.Outstanding);
        Assert.Equal(0, pool.FreeOwners);
    }

    [Fact]
    public void Two_blocks_out_at_once_have_different_owners_and_arrays()
    {
        var pool = new ReceiveBlockPool(new BodyPool(retainedLimit: 4 * 1024 * 1024));
        pool.Rent().Dispose();
        var a = pool.Rent();
        var b = pool.Rent();

        Assert.NotSame(a, b);
        Assert.False(a.Memory.Span.Overlaps(b.Memory.Span));
        a.Dispose();
        Assert.Equal(ReceiveBlockPool.BlockSize, b.Memory.Length); // giving back one leaves the other usable
    }

    [Fact]
    public void At_most_the_kept_number_of_free_owners_is_held()
    {
        var pool = new ReceiveBlockPool(new BodyPool(retainedLimit: 0));
        var blocks = Enumerable.Range(0, ReceiveBlockPool.KeptOwners + 10).Select(_ => pool.Rent()).ToList();
        foreach (var block in blocks)
            block.Dispose();

        Assert.Equal(ReceiveBlockPool.KeptOwners, pool.FreeOwners);
        Assert.Equal(0, pool.Outstanding);
    }
}
