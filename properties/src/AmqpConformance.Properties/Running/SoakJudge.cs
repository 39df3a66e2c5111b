namespace AmqpConformance.Properties.Running;

/// <summary>
/// The soak's growth rule: with at least <see cref="MinimumSamples"/> idle-time samples, a resource grows when its
/// smallest value over the last third of the samples exceeds its largest over the first third by more than the
/// resource's bound (<see cref="RentalsBound"/> rentals, <see cref="BytesBound"/> bytes held or queued). Lenient by
/// design: a resource that only fluctuates shows its highs in the first third too, warm-up counts as the first third,
/// and a leak smaller than the bound over the whole run passes.
/// </summary>
public static class SoakJudge
{
    /// <summary>Fewer samples than this are not judged for growth.</summary>
    public const int MinimumSamples = 6;

    /// <summary>How many more outstanding rentals the last third may keep than the first third's most.</summary>
    public const int RentalsBound = 8;

    /// <summary>How many more bytes (held in rentals, or queued in the transport) the last third may keep.</summary>
    public const long BytesBound = 64 * 1024;

    /// <summary>The <c>soak/resource-growth</c> violations in <paramref name="samples"/> (chronological).</summary>
    public static IReadOnlyList<SoakViolation> Growth(IReadOnlyList<SoakSample> samples)
    {
        ArgumentNullException.ThrowIfNull(samples);
        var found = new List<SoakViolation>();
        if (samples.Count < MinimumSamples)
            return found;
        Check(found, samples, "outstanding rentals", s => s.OutstandingRentals, RentalsBound);
        Check(found, samples, "bytes held", s => s.BytesHeld, BytesBound);
        Check(found, samples, "transport backlog", s => s.TransportBacklog, BytesBound);
        return found;
    }

    private static void Check(
        List<SoakViolation> found,
        IReadOnlyList<SoakSample> samples,
        string resource,
        Func<SoakSample, long> value,
        long bound
    )
    {
        int third = samples.Count / 3;
        long firstMax = samples.Take(third).Max(value);
        long lastMin = samples.Skip(samples.Count - third).Min(value);
        if (lastMin <= firstMax + bound)
            return;
        string series = string.Join(", ", Spread(samples).Select(s => $"r{s.Round}={value(s)}"));
        found.Add(
            new SoakViolation(
                "soak/resource-growth",
                $"{resource} grew while idle: at least {lastMin} over the last third of the run, at most {firstMax} over the first (bound {bound}); samples: {series}"
            )
        );
    }

    /// <summary>How many samples a growth violation lists at most: an hour's soak takes thousands.</summary>
    public const int SamplesListed = 12;

    /// <summary>At most <see cref="SamplesListed"/> of <paramref name="samples"/>, evenly spread, the first and the
    /// last among them.</summary>
    private static IEnumerable<SoakSample> Spread(IReadOnlyList<SoakSample> samples)
    {
        if (samples.Count <= SamplesListed)
            return samples;
        return Enumerable
            .Range(0, SamplesListed)
            .Select(i => samples[(int)((long)i * (samples.Count - 1) / (SamplesListed - 1))]);
    }
}
