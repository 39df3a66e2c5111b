using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary><see cref="ThreadPoolHeadroom"/>: a check leaves the pool able to start cores + headroom threads without
/// delay, and never lowers a minimum somebody set higher. Runs alone: it sets the process's minimum for a moment.</summary>
[Collection(RunsAloneCollection.Name)]
public sealed class ThreadPoolHeadroomTests
{
    [Fact]
    public void After_a_check_the_pool_starts_cores_plus_headroom_threads_without_delay()
    {
        var outcome = ConformanceProperties.Check(
            Harness.Writers.WriterModes.Inline,
            "order",
            new PropertyRunOptions { MaxTest = 1, Seed = 1 }
        );

        Assert.True(outcome.Holds, outcome.Describe());
        ThreadPool.GetMinThreads(out int workers, out _);
        Assert.True(
            workers >= Environment.ProcessorCount + ThreadPoolHeadroom.Headroom,
            $"minimum worker threads {workers}, wanted at least {Environment.ProcessorCount} cores + {ThreadPoolHeadroom.Headroom}"
        );
    }

    [Fact]
    public void A_higher_minimum_is_kept()
    {
        ThreadPool.GetMinThreads(out int before, out int ports);
        int higher = Math.Max(before, Environment.ProcessorCount + ThreadPoolHeadroom.Headroom) + 5;
        Assert.True(ThreadPool.SetMinThreads(higher, ports));
        try
        {
            Assert.Equal(higher, ThreadPoolHeadroom.Ensure());
        }
        finally
        {
            ThreadPool.SetMinThreads(before, ports);
        }
    }
}
