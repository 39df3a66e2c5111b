using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Cuts every chunk into slices of about <see cref="AverageSize"/> +/- <see cref="SizeVariation"/>
/// bytes, waiting <see cref="DelayMicroseconds"/> between slices (Toxiproxy's <c>slicer</c> toxic): the
/// partial reads and writes of a real TCP stream.</summary>
public sealed record SlicerFault : Fault
{
    /// <summary>Creates a slicer fault.</summary>
    public SlicerFault(int averageSize, int sizeVariation = 0, int delayMicroseconds = 0)
    {
        AverageSize = averageSize;
        SizeVariation = sizeVariation;
        DelayMicroseconds = delayMicroseconds;
    }

    /// <summary>Average slice size in bytes (at least 1).</summary>
    [JsonPropertyName("averageSize")]
    public int AverageSize { get; init; }

    /// <summary>Slices vary uniformly within +/- this many bytes (seeded); less than
    /// <see cref="AverageSize"/>.</summary>
    [JsonPropertyName("sizeVariation")]
    public int SizeVariation { get; init; }

    /// <summary>Delay between two slices of one chunk, in microseconds.</summary>
    [JsonPropertyName("delayMicroseconds")]
    public int DelayMicroseconds { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + AverageSize + SizeVariation + DelayMicroseconds;

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        foreach (long d in Smaller(DelayMicroseconds))
            yield return this with
            {
                DelayMicroseconds = (int)d,
            };
        foreach (long v in Smaller(SizeVariation))
            yield return this with
            {
                SizeVariation = (int)v,
            };
        foreach (long a in Smaller(AverageSize, 1))
            yield return this with
            {
                AverageSize = (int)a,
                SizeVariation = Math.Min(SizeVariation, (int)a - 1),
            };
    }

    /// <inheritdoc />
    public override void Validate()
    {
        Require(AverageSize, 1, nameof(AverageSize));
        Require(SizeVariation, 0, nameof(SizeVariation));
        Require(DelayMicroseconds, 0, nameof(DelayMicroseconds));
        if (SizeVariation >= AverageSize)
            throw new ArgumentException(
                $"SlicerFault.SizeVariation ({SizeVariation}) must be less than AverageSize ({AverageSize}).",
                nameof(SizeVariation)
            );
    }
}
