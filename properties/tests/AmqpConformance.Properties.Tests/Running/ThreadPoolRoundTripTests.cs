using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The settle's trip through the thread pool never completes inline, and resumes on a pool thread every time
/// it is awaited again.</summary>
public sealed class ThreadPoolRoundTripTests
{
    [Fact]
    public async Task Each_await_takes_the_trip_and_resumes_on_a_thread_pool_thread()
    {
        Assert.False(new ThreadPoolRoundTrip().IsCompleted);
        var trips = Task.Run(async () =>
        {
            var trip = new ThreadPoolRoundTrip();
            for (int i = 0; i < 1000; i++)
            {
                await trip;
                Assert.True(Thread.CurrentThread.IsThreadPoolThread);
            }
        });
        Assert.Same(trips, await Task.WhenAny(trips, Task.Delay(TimeSpan.FromSeconds(60))));
        await trips;
    }
}
