using System.Text.Json;

namespace AmqpConformance.Cli;

/// <summary>One property of one writer in one shard's <c>run --json</c> results (<see cref="ShardResults"/>).</summary>
/// <param name="Writer">The writer's name.</param>
/// <param name="Property">The property's name.</param>
/// <param name="Holds">Whether it held in the shard.</param>
/// <param name="Cases">The cases the shard ran of it (up to and including a failure).</param>
/// <param name="Replay">The failing case's replay token, or null.</param>
/// <param name="Rules">The rules the failure broke, as <c>invariant/rule</c>.</param>
/// <param name="Json">The property's element as written, for the merged JSON.</param>
internal sealed record ShardProperty(
    string Writer,
    string Property,
    bool Holds,
    int Cases,
    string? Replay,
    IReadOnlyList<string> Rules,
    JsonElement Json
)
{
    /// <summary>The shrunk counterexample of a failure, or null.</summary>
    public string? Counterexample => Text("counterexample");

    /// <summary>The command line that replays the failure (written by runs since <c>--parallel</c>), or null.</summary>
    public string? ReplayCommand => Text("replayCommand");

    /// <summary>The folder of the failure's artifacts, or null.</summary>
    public string? Artifacts => Text("artifacts");

    private string? Text(string name) =>
        Json.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;

    /// <summary>Reads one element of a writer's <c>properties</c>.</summary>
    /// <exception cref="KeyNotFoundException">A required field is missing.</exception>
    /// <exception cref="InvalidOperationException">A field has the wrong type.</exception>
    public static ShardProperty Read(string writer, JsonElement p)
    {
        var rules =
            p.TryGetProperty("violations", out var v) && v.ValueKind == JsonValueKind.Array
                ? v.EnumerateArray()
                    .Select(x => $"{x.GetProperty("invariant").GetString()}/{x.GetProperty("rule").GetString()}")
                    .Distinct()
                    .ToList()
                : [];
        return new ShardProperty(
            writer,
            p.GetProperty("property").GetString() ?? "",
            p.GetProperty("holds").GetBoolean(),
            p.GetProperty("cases").GetInt32(),
            p.TryGetProperty("replay", out var r) && r.ValueKind == JsonValueKind.String ? r.GetString() : null,
            rules,
            p.Clone()
        );
    }
}
