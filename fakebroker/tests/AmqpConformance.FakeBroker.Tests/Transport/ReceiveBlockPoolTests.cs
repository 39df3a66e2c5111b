namespace AmqpConformance.FakeBroker.Tests.Transport;

/// <summary><see cref="ReceiveBlockPool"/>: fixed-size blocks out of a <see cref="BodyPool"/>, given back once however
/// often their owner is disposed, and counted while out.</summary>
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
        Assert.Contains(ReceiveBlockPool.BlockSize.ToString(System.Globalization.CultureInfo.InvariantCulture), e.Message);
        Assert.Equal(ReceiveBlockPool.BlockSize, pool.MaxBufferSize);
        Assert.Equal(0, pool.Outstanding);
    }
}
