using AmqpConformance.Harness.Pooling;

namespace AmqpConformance.Harness.Tests.Pooling;

public sealed class TrackingArrayPoolTests
{
    [Fact]
    public void Balanced_rents_and_returns_are_clean_and_counted()
    {
        var pool = new TrackingArrayPool();
        var a = pool.Rent(100);
        var b = pool.Rent(5000);
        Assert.Equal(2, pool.OutstandingCount);
        pool.Return(a);
        pool.Return(b);

        var report = pool.Verify();
        Assert.True(report.IsClean, report.ToString());
        Assert.Equal(2, pool.Rents);
        Assert.Equal(2, pool.Returns);
        Assert.Equal(128 + 8192, pool.BytesRented);
        Assert.Equal(0, pool.OutstandingCount);
        Assert.Contains("clean", report.ToString());
        pool.AssertClean();
    }

    [Fact]
    public void Returned_arrays_are_reused_and_poisoned()
    {
        var pool = new TrackingArrayPool();
        var a = pool.Rent(1000);
        Assert.True(a.Length >= 1000);
        pool.Return(a);
        Assert.All(a, b => Assert.Equal(pool.Options.PoisonByte, b));
        var again = pool.Rent(700);
        Assert.Same(a, again);
        Assert.Equal(1, pool.ArraysAllocated);
        pool.Return(again);
        pool.AssertClean();
    }

    [Fact]
    public void A_leak_is_reported_with_its_id_size_and_rent_stack()
    {
        var pool = new TrackingArrayPool(new TrackingArrayPoolOptions { CaptureStackTraces = true });
        pool.Return(pool.Rent(10));
        _ = pool.Rent(3000);

        var report = pool.Verify();
        var leak = Assert.Single(report.Findings);
        Assert.Equal(PoolFindingKind.Leak, leak.Kind);
        Assert.Equal(4096, leak.Size);
        Assert.Equal(2, leak.ArrayId);
        Assert.Contains(nameof(A_leak_is_reported_with_its_id_size_and_rent_stack), leak.RentStack);
        Assert.Single(pool.Outstanding);
        var ex = Assert.Throws<PoolLedgerException>(pool.AssertClean);
        Assert.Contains("array #2 (4096 bytes, 3000 requested) was rented and never returned", ex.Message);
        Assert.Contains(nameof(A_leak_is_reported_with_its_id_size_and_rent_stack), ex.Message);
    }

    [Fact]
    public void A_double_return_is_reported_and_never_hands_one_array_to_two_renters()
    {
        var pool = new TrackingArrayPool();
        var a = pool.Rent(64);
        pool.Return(a);
        pool.Return(a);

        var finding = Assert.Single(pool.Findings);
        Assert.Equal(PoolFindingKind.DoubleReturn, finding.Kind);
        Assert.Equal(1, finding.ArrayId);
        var first = pool.Rent(64);
        var second = pool.Rent(64);
        Assert.NotSame(first, second);
        Assert.Equal(1, pool.Returns);
        pool.Return(first);
        pool.Return(second);
        Assert.Contains("double return", Assert.Throws<PoolLedgerException>(pool.AssertClean).Message);
    }

    [Fact]
    public void A_foreign_return_is_reported_and_the_array_is_not_pooled()
    {
        var pool = new TrackingArrayPool();
        var foreign = new byte[256];
        pool.Return(foreign);

        var finding = Assert.Single(pool.Findings);
        Assert.Equal(PoolFindingKind.ForeignReturn, finding.Kind);
        Assert.Equal(256, finding.Size);
        Assert.NotSame(foreign, pool.Rent(256));
        Assert.Contains("never rented", Assert.Throws<PoolLedgerException>(pool.AssertClean).Message);
    }

    [Fact]
    public void A_write_after_return_is_found_on_the_next_rent_with_its_offsets()
    {
        var pool = new TrackingArrayPool();
        var a = pool.Rent(100);
        pool.Return(a);
        a[10] = 1;
        a[20] = 2;
        var again = pool.Rent(100);
        pool.Return(again);

        var finding = Assert.Single(pool.Findings);
        Assert.Equal(PoolFindingKind.WriteAfterReturn, finding.Kind);
        Assert.Contains("2 byte(s) differ", finding.Message);
        Assert.Contains("between offsets 10 and 20", finding.Message);
        Assert.Contains("rented again", finding.Message);
    }

    [Fact]
    public void A_write_after_return_is_found_by_Verify_once()
    {
        var pool = new TrackingArrayPool();
        var a = pool.Rent(32);
        pool.Return(a);
        a[31] = 0;

        var report = pool.Verify();
        var finding = Assert.Single(report.Findings);
        Assert.Equal(PoolFindingKind.WriteAfterReturn, finding.Kind);
        Assert.Contains("Verify", finding.Message);
        Assert.Single(pool.Verify().Findings); // recorded once, not re-found
    }

    [Fact]
    public void Without_poisoning_returned_arrays_are_left_alone()
    {
        var pool = new TrackingArrayPool(new TrackingArrayPoolOptions { PoisonReturnedArrays = false });
        var a = pool.Rent(16);
        a[0] = 42;
        pool.Return(a);
        Assert.Equal(42, a[0]);
        a[1] = 7;
        pool.AssertClean();
    }

    [Fact]
    public void The_report_lists_every_finding_grouped_by_kind()
    {
        var pool = new TrackingArrayPool();
        var a = pool.Rent(16);
        pool.Return(a);
        pool.Return(a);
        pool.Return(new byte[16]);
        _ = pool.Rent(1 << 20);

        string text = pool.Verify().ToString();
        Assert.Contains("3 finding(s)", text);
        Assert.Contains("DoubleReturn x1", text);
        Assert.Contains("ForeignReturn x1", text);
        Assert.Contains("Leak x1", text);
    }

    [Fact]
    public async Task Concurrent_use_keeps_an_exact_ledger()
    {
        var pool = new TrackingArrayPool();
        const int threads = 4,
            perThread = 5000;
        await Task.WhenAll(
                Enumerable
                    .Range(0, threads)
                    .Select(t =>
                        Task.Run(() =>
                        {
                            var random = new Random(t);
                            for (int i = 0; i < perThread; i++)
                            {
                                var array = pool.Rent(random.Next(1, 70_000));
                                array[0] = (byte)i;
                                pool.Return(array);
                            }
                        })
                    )
            )
            .WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(threads * perThread, pool.Rents);
        Assert.Equal(threads * perThread, pool.Returns);
        Assert.True(
            pool.ArraysAllocated <= threads * 14,
            $"{pool.ArraysAllocated} arrays allocated: returned arrays are not being reused"
        );
        pool.AssertClean();
    }
}
