using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy;

/// <summary>Toxiproxy's stream names and their <see cref="FaultDirection"/>.</summary>
public static class ToxicStreams
{
    /// <summary>Client to server.</summary>
    public const string Upstream = "upstream";

    /// <summary>Server to client.</summary>
    public const string Downstream = "downstream";

    /// <summary>The stream name of <paramref name="direction"/>.</summary>
    public static string Of(FaultDirection direction) => direction == FaultDirection.Upstream ? Upstream : Downstream;

    /// <summary>Parses a stream name; false when it is neither "upstream" nor "downstream".</summary>
    public static bool TryParse(string? stream, out FaultDirection direction)
    {
        direction = stream == Upstream ? FaultDirection.Upstream : FaultDirection.Downstream;
        return stream is Upstream or Downstream;
    }
}
