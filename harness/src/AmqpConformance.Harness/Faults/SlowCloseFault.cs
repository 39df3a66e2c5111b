using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>When the sending side ends its stream, waits <see cref="DelayMs"/> before passing the end on
/// (Toxiproxy's <c>slow_close</c> toxic).</summary>
public sealed record SlowCloseFault : Fault
{
    /// <summary>Creates a slow close.</summary>
    public SlowCloseFault(int delayMs)
    {
        DelayMs = delayMs;
    }

    /// <summary>The delay in milliseconds.</summary>
    [JsonPropertyName("delayMs")]
    public int DelayMs { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + DelayMs;

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        foreach (long d in Smaller(DelayMs))
            yield return this with
            {
                DelayMs = (int)d,
            };
    }

    /// <inheritdoc />
    public override void Validate() => Require(DelayMs, 0, nameof(DelayMs));
}
