using System.Text.Json;

namespace AmqpConformance.Toxiproxy;

/// <summary>JSON settings shared by the embedded API and the client. The names (name, listen, upstream, enabled,
/// toxics; type, stream, toxicity, attributes) come from the models' attributes; reading ignores case, as Go's
/// decoder does.</summary>
public static class ToxiproxyJson
{
    /// <summary>The options: case-insensitive reading, compact writing.</summary>
    public static JsonSerializerOptions Options { get; } =
        new(JsonSerializerDefaults.General) { PropertyNameCaseInsensitive = true, WriteIndented = false };
}
