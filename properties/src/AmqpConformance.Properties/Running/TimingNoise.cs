namespace AmqpConformance.Properties.Running;

/// <summary>
/// Seeded timing noise at a touch point the harness controls (the writer's output, its pool): now and then the thread
/// gives up its time slice or spins a little, so that another thread inside the writer gets to run in between. Widens
/// race windows without sleeping. Thread-safe.
/// </summary>
internal sealed class TimingNoise(int seed)
{
    private readonly Random _random = new(seed);

    /// <summary>In one call in <paramref name="oneIn"/> yields the thread, in another one spins 50 to 2,050 iterations
    /// (up to about 70 µs); otherwise does nothing.</summary>
    public void Perturb(int oneIn)
    {
        switch (Next(oneIn))
        {
            case 0:
                Thread.Yield();
                break;
            case 1:
                Thread.SpinWait(50 + Next(2000));
                break;
        }
    }

    /// <summary>A seeded number from 0 to <paramref name="maxExclusive"/> - 1.</summary>
    public int Next(int maxExclusive)
    {
        lock (_random)
            return _random.Next(maxExclusive);
    }
}
