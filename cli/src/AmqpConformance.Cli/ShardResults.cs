using System.Text.Json;
using AmqpConformance.Properties;

namespace AmqpConformance.Cli;

/// <summary>One shard's results as read from its <c>run --json</c> file (<see cref="Read"/>), and whether a set of them
/// is one run's (<see cref="Inconsistency"/>): what <c>merge</c> and <c>run --parallel</c> combine.</summary>
/// <param name="File">The file it was read from.</param>
/// <param name="Seed">The run's seed, if it had one.</param>
/// <param name="Shard">The shard it ran; null for a run that was not sharded.</param>
/// <param name="Cases">The cases per property the run generated.</param>
/// <param name="Interrupted">Whether the run was stopped before it finished.</param>
/// <param name="Properties">Each property of each writer.</param>
internal sealed record ShardResults(
    string File,
    ulong? Seed,
    CaseShard? Shard,
    int Cases,
    bool Interrupted,
    IReadOnlyList<ShardProperty> Properties
)
{
    /// <summary>The index (from 0) in the unsharded run of <paramref name="property"/>'s failing case
    /// (<see cref="ShardMerge.FailingCase"/>: the merge rule the properties' parallel workers use too).</summary>
    public int FailingCase(ShardProperty property) => ShardMerge.FailingCase(Shard, property.Cases);

    /// <summary>Why <paramref name="shards"/> are not one run's, or null when they are: one seed, one case count, one
    /// shard count, each shard once, and none missing: every shard of the run, or, with <paramref name="of"/>, every
    /// part of that shard cut into as many (<see cref="CaseShard.Split"/>: <c>run --shard K/M --parallel
    /// N</c>).</summary>
    public static string? Inconsistency(IReadOnlyList<ShardResults> shards, CaseShard? of = null)
    {
        if (shards.Select(s => s.Seed).Distinct().Count() > 1)
            return $"The files are not shards of one run: their seeds differ ({string.Join(", ", shards.Select(s => $"{s.File}: {s.Seed?.ToString() ?? "none"}"))}).";
        if (shards.Select(s => s.Cases).Distinct().Count() > 1)
            return $"The files are not shards of one run: their case counts differ ({string.Join(", ", shards.Select(s => $"{s.File}: {s.Cases}"))}).";
        if (shards.Count > 1 && shards.Any(s => s.Shard is null))
            return $"{shards.First(s => s.Shard is null).File} is not a shard (run without --shard): merge the shards of one run.";
        var parsed = shards.Where(s => s.Shard is not null).Select(s => (s.File, Shard: s.Shard!)).ToList();
        if (parsed.Select(p => p.Shard.Count).Distinct().Count() > 1)
            return $"The files cut the run into different numbers of shards ({string.Join(", ", parsed.Select(p => $"{p.File}: {p.Shard}"))}).";
        if (parsed.GroupBy(p => p.Shard.Number).FirstOrDefault(g => g.Count() > 1) is { } twice)
            return $"Shard {twice.First().Shard} is given twice ({string.Join(", ", twice.Select(p => p.File))}).";
        if (parsed.Count > 0)
        {
            int count = parsed[0].Shard.Count;
            var expected =
                of is null ? new CaseShard(1, 1).Split(count)
                : count % of.Count == 0 ? of.Split(count / of.Count)
                : [];
            if (parsed.FirstOrDefault(p => !expected.Contains(p.Shard)) is { File: not null } stray)
                return $"{stray.File} is shard {stray.Shard}, not a part of shard {of}.";
            var missing = expected.Except(parsed.Select(p => p.Shard)).ToList();
            if (missing.Count > 0)
                return $"Shard(s) {string.Join(", ", missing)} missing: a merged verdict needs every shard of the run.";
        }
        return null;
    }

    /// <summary>Reads one <c>run --json</c> file; null with <paramref name="problem"/> when it cannot.</summary>
    public static ShardResults? Read(string file, out string? problem)
    {
        problem = null;
        try
        {
            using var document = JsonDocument.Parse(System.IO.File.ReadAllText(file));
            var root = document.RootElement;
            if (
                root.ValueKind != JsonValueKind.Object
                || !root.TryGetProperty("writers", out var writers)
                || writers.ValueKind != JsonValueKind.Array
            )
            {
                problem = "not the results of a run (amqp-conformance run --json FILE): no \"writers\" list.";
                return null;
            }
            ulong? seed =
                root.TryGetProperty("seed", out var s) && s.ValueKind == JsonValueKind.Number ? s.GetUInt64() : null;
            // A hand-edited file with a bad shard is bad input (Parse throws FormatException).
            var shard =
                root.TryGetProperty("shard", out var k) && k.ValueKind == JsonValueKind.String
                    ? CaseShard.Parse(k.GetString()!)
                    : null;
            int cases =
                root.TryGetProperty("casesPerProperty", out var c) && c.ValueKind == JsonValueKind.Number
                    ? c.GetInt32()
                    : 0;
            bool interrupted = root.TryGetProperty("interrupted", out var i) && i.ValueKind == JsonValueKind.True;
            var results = new List<ShardProperty>();
            foreach (var writer in writers.EnumerateArray())
            {
                string name = writer.GetProperty("name").GetString() ?? "";
                foreach (var p in writer.GetProperty("properties").EnumerateArray())
                    results.Add(ShardProperty.Read(name, p));
            }
            return new ShardResults(file, seed, shard, cases, interrupted, results);
        }
        catch (Exception e)
            when (e
                    is IOException
                        or UnauthorizedAccessException
                        or JsonException
                        or KeyNotFoundException
                        or InvalidOperationException
                        or FormatException
            )
        {
            problem = e is JsonException or KeyNotFoundException or InvalidOperationException
                ? $"not the results of a run ({e.Message})"
                : e.Message;
            return null;
        }
    }
}
