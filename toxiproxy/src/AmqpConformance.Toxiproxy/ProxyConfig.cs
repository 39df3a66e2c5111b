using System.Text.Json.Serialization;

namespace AmqpConformance.Toxiproxy;

/// <summary>A proxy as Toxiproxy's HTTP API (v2) shows it:
/// <c>{"name","listen","upstream","enabled","toxics"}</c>.</summary>
public sealed record ProxyConfig
{
    /// <summary>Unique name.</summary>
    [JsonPropertyName("name")]
    public string Name { get; init; } = "";

    /// <summary>host:port the proxy listens on; port 0 asks for a free port, and the server reports the real
    /// one.</summary>
    [JsonPropertyName("listen")]
    public string Listen { get; init; } = "";

    /// <summary>host:port the proxy forwards to.</summary>
    [JsonPropertyName("upstream")]
    public string Upstream { get; init; } = "";

    /// <summary>Whether the proxy accepts connections.</summary>
    [JsonPropertyName("enabled")]
    public bool Enabled { get; init; } = true;

    /// <summary>The toxics in force, upstream ones first, each in the order added.</summary>
    [JsonPropertyName("toxics")]
    public IReadOnlyList<ToxicConfig> Toxics { get; init; } = [];

    /// <summary>The port of <see cref="Listen"/>.</summary>
    [JsonIgnore]
    public int ListenPort =>
        int.Parse(Listen[(Listen.LastIndexOf(':') + 1)..], System.Globalization.CultureInfo.InvariantCulture);
}
