using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Which byte stream of a connection a fault acts on. Serialised as "upstream" / "downstream",
/// the words Toxiproxy uses for its <c>stream</c> field.</summary>
[JsonConverter(typeof(FaultDirectionJsonConverter))]
public enum FaultDirection
{
    /// <summary>Client to broker: the bytes the frame writer under test produces.</summary>
    Upstream,

    /// <summary>Broker to client.</summary>
    Downstream,
}

/// <summary>Reads and writes <see cref="FaultDirection"/> as "upstream" / "downstream" (names only, no
/// numbers).</summary>
public sealed class FaultDirectionJsonConverter()
    : JsonStringEnumConverter<FaultDirection>(System.Text.Json.JsonNamingPolicy.CamelCase, allowIntegerValues: false);
