using AmqpConformance.FakeBroker.Tests.Support;

namespace AmqpConformance.FakeBroker.Tests.Bodies;

/// <summary><see cref="BodyPool"/>: power-of-two arrays from 64 KiB to 16 MiB come back for reuse, up to the retention
/// limit; anything else is neither pooled nor taken back.</summary>
public sealed class BodyPoolTests
{
    [Fact]
    public void A_returned_array_is_rented_again_for_a_body_of_its_size_class()
    {
        var pool = new BodyPool(retainedLimit: 4 * 1024 * 1024);
        byte[] first = pool.Rent(1_000_000);
        Assert.Equal(1024 * 1024, first.Length);
        pool.Return(first);
        Assert.Equal(first.Length, pool.Retained);

        Assert.Same(first, pool.Rent(600_000)); // 600,000 bytes round up to the same 1 MiB class
        Assert.Equal(0, pool.Retained);
        Assert.NotSame(first, pool.Rent(1_000_000)); // taken: the next renter gets another array
    }

    [Theory]
    [InlineData(64 * 1024, 64 * 1024)]
    [InlineData(64 * 1024 + 1, 128 * 1024)]
    [InlineData(1024 * 1024, 1024 * 1024)]
    [InlineData(16 * 1024 * 1024, 16 * 1024 * 1024)]
    public void Pooled_lengths_round_up_to_a_power_of_two(int length, int expected) =>
        Assert.Equal(expected, new BodyPool(0).Rent(length).Length);

    [Fact]
    public void Lengths_outside_the_pooled_range_get_exact_arrays_that_are_never_taken_back()
    {
        var pool = new BodyPool(retainedLimit: 64 * 1024 * 1024);
        byte[] small = pool.Rent(1000);
        byte[] huge = pool.Rent(16 * 1024 * 1024 + 1);
        Assert.Equal((1000, 16 * 1024 * 1024 + 1), (small.Length, huge.Length));
        pool.Return(small);
        pool.Return(huge);
        pool.Return(new byte[100_000]); // in range but not a pooled length: not one of ours
        Assert.Equal(0, pool.Retained);
    }

    [Fact]
    public void Arrays_beyond_the_retention_limit_are_left_to_the_garbage_collector()
    {
        var pool = new BodyPool(retainedLimit: 2 * 1024 * 1024);
        byte[][] arrays = [pool.Rent(1024 * 1024), pool.Rent(1024 * 1024), pool.Rent(1024 * 1024)];
        foreach (byte[] array in arrays)
            pool.Return(array);
        Assert.Equal(2 * 1024 * 1024, pool.Retained);
        pool.Clear();
        Assert.Equal(0, pool.Retained);
    }

    [Fact]
    public void A_full_collection_drops_the_free_arrays_of_a_pool_that_sat_unused()
    {
        var pool = new BodyPool(retainedLimit: 4 * 1024 * 1024, idleBeforeTrim: TimeSpan.Zero);
        pool.Return(pool.Rent(1024 * 1024));
        Assert.Equal(1024 * 1024, pool.Retained);

        Gen2Trims.CollectUntil(() => pool.Retained == 0);

        Assert.Equal(0, pool.Retained);
    }

    [Fact]
    public void A_pool_in_use_keeps_its_free_arrays_through_a_trim()
    {
        var pool = new BodyPool(retainedLimit: 4 * 1024 * 1024, idleBeforeTrim: TimeSpan.FromDays(1));
        pool.Return(pool.Rent(1024 * 1024));

        Assert.False(pool.TrimIfIdle());
        Assert.Equal(1024 * 1024, pool.Retained);
    }
}
