namespace AmqpConformance.Harness.Faults;

/// <summary>SplitMix64: a tiny generator whose sequence is fixed by this code alone (unlike
/// <see cref="Random"/>, whose seeded sequence is an implementation detail of the runtime), so a fault
/// plan replays identically on any .NET version.</summary>
internal sealed class DeterministicRandom(ulong seed)
{
    private ulong _state = seed;

    /// <summary>A generator for one direction of a plan.</summary>
    public static DeterministicRandom For(int seed, FaultDirection direction) =>
        new(((ulong)(uint)seed << 1 | (ulong)direction) * 0xD1B54A32D192ED03UL);

    public ulong NextUInt64()
    {
        ulong z = _state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    /// <summary>Uniform in [<paramref name="minInclusive"/>, <paramref name="maxInclusive"/>].</summary>
    public long NextInclusive(long minInclusive, long maxInclusive)
    {
        if (maxInclusive <= minInclusive)
            return minInclusive;
        ulong range = (ulong)(maxInclusive - minInclusive) + 1;
        return minInclusive + (long)(NextUInt64() % range);
    }
}
