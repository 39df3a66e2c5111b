using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Closes the connection (orderly close, not a reset) once <see cref="Bytes"/> bytes went through
/// (Toxiproxy's <c>limit_data</c> toxic). The bytes before the limit stay delivered.</summary>
public sealed record LimitDataFault : Fault
{
    /// <summary>Creates a data limit.</summary>
    public LimitDataFault(long bytes)
    {
        Bytes = bytes;
    }

    /// <summary>Bytes delivered before the close.</summary>
    [JsonPropertyName("bytes")]
    public long Bytes { get; init; }

    /// <inheritdoc />
    protected override long ComputeComplexity() => 1 + Bytes;

    /// <inheritdoc />
    public override IEnumerable<Fault> ShrinkCandidates()
    {
        foreach (long b in Smaller(Bytes))
            yield return this with
            {
                Bytes = b,
            };
    }

    /// <inheritdoc />
    public override void Validate() => Require(Bytes, 0, nameof(Bytes));
}
