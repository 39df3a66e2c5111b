using FsCheck;

namespace AmqpConformance.Properties;

/// <summary>
/// The replay token of a generated case, worked out before the case's result is known. FsCheck hands out a failing
/// case's coordinates only once the run has ended; a crash ends the process before that. So a property check starts
/// FsCheck from a seed of its own (<see cref="NewStart"/>) and counts its cases, and this class walks FsCheck 3's
/// runner from there: case k is generated from the right half of the k-th split of the run's seed, at the size that
/// started at <c>StartSize</c> and grew by <c>(EndSize - StartSize) / MaxTest</c> per case, rounded half to even. Only
/// computed when a report needs it.
/// </summary>
/// <remarks>This mirrors FsCheck's <c>Runner.stepsSeq</c> and <c>Random.Split</c> (SplitMix), which FsCheck does not
/// expose; <c>CaseReplayTokensTests</c> pins it against the tokens FsCheck itself reports for failing cases, so an
/// FsCheck upgrade that changes either shows there.</remarks>
internal static class CaseReplayTokens
{
    /// <summary>A fresh random start for a property check (FsCheck's own <c>Rnd(seed)</c>: the golden gamma).</summary>
    public static Rnd NewStart() => new((ulong)Random.Shared.NextInt64(long.MinValue, long.MaxValue));

    /// <summary>The start of property <paramref name="property"/> in a run with seed <paramref name="seed"/>: the seed
    /// mixed with the property's name (FNV-1a, stable across processes, unlike <see cref="string.GetHashCode()"/>), so
    /// the properties of one run draw different cases and every run with that seed draws the same ones.</summary>
    public static Rnd StartFor(ulong seed, string property)
    {
        ulong hash = 14695981039346656037;
        foreach (char c in property)
        {
            hash ^= c;
            hash *= 1099511628211;
        }
        return new Rnd(seed ^ hash);
    }

    /// <summary>The token that replays generated case <paramref name="caseIndex"/> (0 = the first) of a run started at
    /// <paramref name="start"/>.</summary>
    public static ReplayToken For(Rnd start, int startSize, int endSize, int maxTest, int caseIndex)
    {
        double step = (double)(endSize - startSize) / maxTest;
        double size = startSize;
        ulong seed = start.Seed,
            gamma = start.Gamma;
        for (int k = 0; ; k++)
        {
            // Random.Split: s1 = next, s2 = next of s1; the run carries s2 on, the case gets (mix64(s1), mixGamma(s2)).
            ulong s1 = seed + gamma;
            ulong s2 = s1 + gamma;
            size += step;
            if (k == caseIndex)
                return new ReplayToken(
                    Mix64Variant13(s1),
                    MixGamma(s2),
                    (int)Math.Round(size, MidpointRounding.ToEven)
                );
            seed = s2;
        }
    }

    private static ulong Mix64(ulong z)
    {
        z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdUL;
        z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53UL;
        return z ^ (z >> 33);
    }

    private static ulong Mix64Variant13(ulong z)
    {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
        return z ^ (z >> 31);
    }

    private static ulong MixGamma(ulong z)
    {
        z = Mix64(z) | 1UL;
        ulong n = (ulong)System.Numerics.BitOperations.PopCount(z ^ (z >> 1));
        return n < 24UL ? z ^ 0xaaaaaaaaaaaaaaaaUL : z;
    }
}
