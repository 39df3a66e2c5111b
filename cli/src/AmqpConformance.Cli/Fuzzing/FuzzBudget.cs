namespace AmqpConformance.Cli.Fuzzing;

/// <summary>How much one fuzz run may do: it stops taking new cases once <see cref="Units"/> (frames or requests) were
/// sent or <see cref="Duration"/> has passed, whichever comes first. <see cref="HangBound"/> is how long one case may
/// take (after its input ended, for the broker) before it counts as a hang.</summary>
internal sealed record FuzzBudget(long Units, TimeSpan Duration, int Seed, int Parallel, TimeSpan HangBound)
{
    /// <summary>The seed of case <paramref name="index"/>: a SplitMix64 step over the run's seed and the index, so a
    /// case replays alone from the run's seed whatever ran before it.</summary>
    public int CaseSeed(long index)
    {
        ulong z = unchecked(((ulong)(uint)Seed << 32) + (ulong)index + 0x9E3779B97F4A7C15UL);
        z = unchecked((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL);
        z = unchecked((z ^ (z >> 27)) * 0x94D049BB133111EBUL);
        return unchecked((int)(z ^ (z >> 31)));
    }
}
