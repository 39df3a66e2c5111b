using System.Text.Json.Serialization;

namespace AmqpConformance.Toxiproxy;

/// <summary>A toxic as Toxiproxy's HTTP API (v2) shows it:
/// <c>{"name","type","stream","toxicity","attributes"}</c>.</summary>
/// <remarks>Attributes of the standard toxics are all integers: latency (latency, jitter: ms), bandwidth
/// (rate: KB/s), slicer (average_size, size_variation: bytes; delay: µs), timeout (timeout: ms, 0 = until
/// removed), reset_peer (timeout: ms), limit_data (bytes), slow_close (delay: ms).</remarks>
public sealed record ToxicConfig
{
    /// <summary>Unique name within the proxy; Toxiproxy defaults it to "{type}_{stream}".</summary>
    [JsonPropertyName("name")]
    public string Name { get; init; } = "";

    /// <summary>"latency", "bandwidth", "slicer", "timeout", "reset_peer", "limit_data", "slow_close".</summary>
    [JsonPropertyName("type")]
    public string Type { get; init; } = "";

    /// <summary>"upstream" (client to server) or "downstream" (server to client; Toxiproxy's default).</summary>
    [JsonPropertyName("stream")]
    public string Stream { get; init; } = ToxicStreams.Downstream;

    /// <summary>Probability (0..1) that the toxic applies to a given connection; default 1.</summary>
    [JsonPropertyName("toxicity")]
    public float Toxicity { get; init; } = 1f;

    /// <summary>The type's attributes.</summary>
    [JsonPropertyName("attributes")]
    public IReadOnlyDictionary<string, long> Attributes { get; init; } = new Dictionary<string, long>();

    /// <summary>An attribute's value, or <paramref name="fallback"/> when absent.</summary>
    public long Attribute(string name, long fallback = 0) => Attributes.TryGetValue(name, out long v) ? v : fallback;

    /// <inheritdoc />
    public bool Equals(ToxicConfig? other) =>
        other is not null
        && Name == other.Name
        && Type == other.Type
        && Stream == other.Stream
        && Toxicity.Equals(other.Toxicity)
        && Attributes.Count == other.Attributes.Count
        && Attributes.All(a => other.Attributes.TryGetValue(a.Key, out long v) && v == a.Value);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(Name, Type, Stream, Toxicity, Attributes.Count);
}
