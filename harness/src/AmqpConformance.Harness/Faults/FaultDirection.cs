using System.Text.Json.Serialization;

namespace AmqpConformance.Harness.Faults;

/// <summary>Which byte stream of a connection a fault acts on. Serialised as "upstream" / "downstream",
/// the words Toxiproxy uses for its <c>stream</c> field.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<FaultDirection>))]
public enum FaultDirection
{
    /// <summary>Client to broker: the bytes the frame writer under test produces.</summary>
    [JsonStringEnumMemberName("upstream")]
    Upstream,

    /// <summary>Broker to client.</summary>
    [JsonStringEnumMemberName("downstream")]
    Downstream,
}
