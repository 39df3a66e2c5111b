using System.Text.Json;
using System.Text.Json.Nodes;
using AmqpConformance.Properties;
using Spectre.Console;

namespace AmqpConformance.Cli;

/// <summary>The verdict of one run's shards taken together (<c>merge</c>, <c>run --parallel</c>): per property and
/// writer, the cases every shard ran, or the failure an unsharded run with the same seed reports, the one of the lowest
/// case index (<see cref="ShardMerge"/>'s rule), with the other shards' failures after it. Printed as one table,
/// written as JSON in the shape of an unsharded run's <c>--json</c>, and as JUnit XML (the table, the failure reports
/// and the JUnit file from one list of <see cref="PropertyVerdict"/>s). With <see cref="Of"/> the shards are the parts
/// of one shard of the run (<c>run --shard K/M --parallel N</c>), and the verdict is that shard's, as one process running
/// it reports it.</summary>
internal sealed class MergedVerdict(IReadOnlyList<ShardResults> shards)
{
    private readonly List<(ShardResults Shard, ShardProperty Result)> _all =
    [
        .. shards.SelectMany(s => s.Properties.Select(p => (s, p))),
    ];

    /// <summary>How long the shards took side by side, when they ran together (<c>run --parallel</c>): the table's
    /// closing lines then say how many cases that was per second.</summary>
    public TimeSpan? Wall { get; init; }

    /// <summary>The shard of the run the shards are the parts of (<see cref="CaseShard.Split"/>: <c>run --shard K/M
    /// --parallel N</c>), or null when they are the whole run's. With it the verdict is reported as that shard's: its
    /// table, its JSON (<c>"shard": "K/M"</c>, each property's cases counted as that shard counts them) and its JUnit
    /// file are what one process running the shard with the seed writes, so <c>merge</c> takes the JSON as that
    /// shard's.</summary>
    public CaseShard? Of { get; init; }

    /// <summary>Whether every property ran in every shard and held there, and no shard was interrupted.</summary>
    public bool AllHold =>
        shards.All(s => !s.Interrupted) && Cells().All(c => c.Parts.Count == shards.Count && c.Failed.Count == 0);

    /// <summary>Prints the table, each failure (first the one an unsharded run reports) and a closing line.</summary>
    public void Write(TextWriter output)
    {
        var first = shards[0];
        var table = new Table()
            .Title(
                Of is not null ? $"Verdicts (shard {Of} of seed {first.Seed}, merged from {shards.Count} processes)"
                : first.Shard is null ? "Verdicts (merged)"
                : $"Verdicts (merged: {shards.Count} shards of seed {first.Seed})"
            )
            .AddColumn("property");
        var writers = _all.Select(x => x.Result.Writer).Distinct().ToList();
        foreach (string w in writers)
            table.AddColumn(Markup.Escape(w));
        foreach (var row in Verdicts.GroupBy(v => v.Property))
        {
            var cells = new List<string> { Markup.Escape(row.Key) };
            foreach (var v in row)
            {
                if (v.NotRun is { } why)
                    cells.Add($"[yellow]{why}[/]");
                else if (v.Finding is { } finding)
                    cells.Add($"[red]VIOLATED[/] {Markup.Escape(finding)}");
                else
                    cells.Add($"[green]holds[/] ({v.Cases} cases)");
            }
            table.AddRow([.. cells]);
        }
        ConsoleStyle.For(output).Write(table);
        foreach (string report in Verdicts.Select(v => v.Report).OfType<string>())
            output.WriteLine(report);
        if (Wall is { TotalSeconds: > 0 } wall)
        {
            int cases = _all.Sum(x => x.Result.Cases);
            output.WriteLine(
                $"{cases} cases in {wall.TotalSeconds:0.0} s on {shards.Count} processes: {cases / wall.TotalSeconds:0.0} cases/s."
            );
        }
        foreach (var s in shards.Where(s => s.Interrupted))
            output.WriteLine($"Shard {s.Shard?.ToString() ?? "-"} ({s.File}) was interrupted: its run is incomplete.");
        output.WriteLine(
            !AllHold ? "Some properties do not hold, or the run is incomplete."
            : Of is null ? $"All properties hold in all {shards.Count} shard(s)."
            : $"All properties hold in shard {Of} (its {shards.Count} part(s))."
        );
    }

    /// <summary>Writes the merged results to <paramref name="path"/>, as an unsharded run's <c>--json</c> with the seed
    /// and no shard (so <c>merge</c> reads it as one whole run), or, with <see cref="Of"/>, as that shard's
    /// <c>--json</c> with <c>shard</c> saying which and <c>parts</c> the shards it was cut into: each property's
    /// element is that of the failure an unsharded run (or the shard run alone) reports, with its <c>cases</c> counted
    /// as that run counts them and <c>shard</c> naming the part where it failed, plus <c>alsoFailedIn</c>; or, for a
    /// property that held, the first shard's with every shard's cases, seconds and events added up.</summary>
    /// <exception cref="IOException">The file could not be written.</exception>
    /// <exception cref="UnauthorizedAccessException">The file could not be written.</exception>
    public void WriteJson(string path)
    {
        var writers = new JsonArray();
        foreach (var byWriter in Cells().GroupBy(c => c.Writer))
        {
            var properties = new JsonArray();
            foreach (var cell in byWriter.Where(c => c.Parts.Count > 0))
                properties.Add(Merged(cell));
            writers.Add(new JsonObject { ["name"] = byWriter.Key, ["properties"] = properties });
        }
        var document = new JsonObject
        {
            ["allHold"] = AllHold,
            ["interrupted"] = shards.Any(s => s.Interrupted),
            ["seed"] = shards[0].Seed,
            ["shard"] = Of?.ToString(),
        };
        if (Of is null)
            document["shards"] = shards.Count;
        else
            document["parts"] = new JsonArray([.. shards.Select(s => JsonValue.Create(s.Shard?.ToString()))]);
        document["casesPerProperty"] = shards[0].Cases;
        document["writers"] = writers;
        string? folder = Path.GetDirectoryName(Path.GetFullPath(path));
        if (folder is not null)
            Directory.CreateDirectory(folder);
        File.WriteAllText(path, document.ToJsonString(new JsonSerializerOptions { WriteIndented = true }));
    }

    /// <summary>Writes the merged verdict as JUnit XML to <paramref name="path"/> (<see cref="JUnitReport"/>), from
    /// <see cref="Verdicts"/>: one test case per writer and property across the shards, a failure being the one an
    /// unsharded run reports, with the other shards' after it, each with its replay line.</summary>
    /// <exception cref="IOException">The file could not be written.</exception>
    /// <exception cref="UnauthorizedAccessException">The file could not be written.</exception>
    public void WriteJUnit(string path) =>
        new JUnitReport(Verdicts)
        {
            Seed = shards[0].Seed,
            Shard = Of?.ToString(),
            Shards = Of is not null || shards[0].Shard is null ? null : shards.Count,
            CasesPerProperty = shards[0].Cases,
            Interrupted = shards.Any(s => s.Interrupted),
        }.Write(path);

    /// <summary>Each property of each writer over the shards (property by property), as the table, the failure reports
    /// and the JUnit file show it: the cases every shard ran, or the failure an unsharded run reports, its report
    /// (<see cref="Describe"/>) followed by the other shards' failures.</summary>
    public IReadOnlyList<PropertyVerdict> Verdicts => _verdicts ??= [.. MakeVerdicts()];

    private IReadOnlyList<PropertyVerdict>? _verdicts;

    private IEnumerable<PropertyVerdict> MakeVerdicts()
    {
        var shrunkOnce = new HashSet<string>(StringComparer.Ordinal);
        foreach (var cell in Cells())
        {
            var verdict = new PropertyVerdict(cell.Writer, cell.Property)
            {
                NotRun = cell.Parts.Count < shards.Count ? $"ran in {cell.Parts.Count} of {shards.Count} shards" : null,
            };
            if (cell.Failed.Count == 0)
            {
                var seconds = cell.Parts.Select(x => Seconds(x.Result.Json)).OfType<double>().ToList();
                yield return verdict with
                {
                    Cases = cell.Parts.Sum(x => x.Result.Cases),
                    Seconds = seconds.Count == 0 ? null : seconds.Sum(),
                };
                continue;
            }
            var (shard, result) = cell.Failed[0];
            int cases = CasesThrough(shard.FailingCase(result));
            string others = cell.Failed.Count > 1 ? $" (failed in {cell.Failed.Count} shards)" : "";
            var report = Describe(cell).ToList();
            if (!shrunkOnce.Add(cell.Writer))
                report.Add(
                    $"  (one process reports this failure unshrunk, an earlier property having shrunk {cell.Writer}'s: the same case and replay token)"
                );
            yield return verdict with
            {
                Cases = cases,
                Seconds = Seconds(result.Json),
                Finding = $"after {cases} case(s){others}: {string.Join(", ", result.Rules)}",
                Report = string.Join(Environment.NewLine, report),
            };
        }
    }

    /// <summary>One property of one writer over the shards; <see cref="Failed"/> by case index, lowest first.</summary>
    private sealed record Cell(
        string Writer,
        string Property,
        List<(ShardResults Shard, ShardProperty Result)> Parts,
        List<(ShardResults Shard, ShardProperty Result)> Failed
    );

    private IEnumerable<Cell> Cells()
    {
        foreach (string property in _all.Select(x => x.Result.Property).Distinct())
        foreach (string writer in _all.Select(x => x.Result.Writer).Distinct())
        {
            var parts = _all.Where(x => x.Result.Writer == writer && x.Result.Property == property).ToList();
            var failed = ShardMerge
                .InRunOrder(parts.Where(x => !x.Result.Holds), x => x.Shard.FailingCase(x.Result))
                .ToList();
            yield return new Cell(writer, property, parts, failed);
        }
    }

    private static IEnumerable<string> Describe(Cell cell)
    {
        for (int i = 0; i < cell.Failed.Count; i++)
        {
            var (shard, result) = cell.Failed[i];
            string where =
                $"case {shard.FailingCase(result)} of the run, shard {shard.Shard?.ToString() ?? "-"}, {shard.File}";
            string replay = result.ReplayCommand
                ?? $"amqp-conformance run --writer {cell.Writer} --invariant {cell.Property} --replay {result.Replay}";
            if (i > 0)
            {
                yield return $"  also failed ({where}): {string.Join(", ", result.Rules)}; replay: {replay}";
                continue;
            }
            yield return $"{cell.Writer} / {cell.Property} ({where}): {string.Join(", ", result.Rules)}; replay: {replay}";
            if (result.Counterexample is { } counterexample)
                yield return $"  counterexample: {counterexample}";
            if (result.Artifacts is { } artifacts)
                yield return $"  artifacts: {artifacts}";
        }
    }

    private JsonNode Merged(Cell cell)
    {
        if (cell.Failed.Count > 0)
        {
            var (shard, result) = cell.Failed[0];
            var node = JsonNode.Parse(result.Json.GetRawText())!.AsObject();
            node["cases"] = CasesThrough(shard.FailingCase(result));
            node["shard"] = shard.Shard?.ToString();
            node["alsoFailedIn"] = new JsonArray([
                .. cell
                    .Failed.Skip(1)
                    .Select(f =>
                        (JsonNode)
                            new JsonObject
                            {
                                ["shard"] = f.Shard.Shard?.ToString(),
                                ["case"] = f.Shard.FailingCase(f.Result),
                                ["replay"] = f.Result.Replay,
                            }
                    ),
            ]);
            return node;
        }
        var merged = JsonNode.Parse(cell.Parts[0].Result.Json.GetRawText())!.AsObject();
        merged["cases"] = cell.Parts.Sum(x => x.Result.Cases);
        merged["seconds"] = Math.Round(cell.Parts.Sum(x => Number(x.Result.Json, "seconds")), 3);
        var events = new JsonObject();
        foreach (var (_, part) in cell.Parts)
            if (part.Json.TryGetProperty("events", out var e) && e.ValueKind == JsonValueKind.Object)
                foreach (var kind in e.EnumerateObject().Where(k => k.Value.ValueKind == JsonValueKind.Number))
                    events[kind.Name] = (events[kind.Name]?.GetValue<long>() ?? 0) + kind.Value.GetInt64();
        merged["events"] = events;
        return merged;
    }

    /// <summary>The cases the run the verdict is of (the whole run, or <see cref="Of"/> alone) runs up to and including
    /// its failure at <paramref name="failingCase"/> (an index in the whole run, from 0): how it counts a failure's
    /// cases.</summary>
    private int CasesThrough(int failingCase) => Of?.CasesThrough(failingCase) ?? failingCase + 1;

    private static double Number(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Number ? value.GetDouble() : 0;

    private static double? Seconds(JsonElement property) =>
        property.TryGetProperty("seconds", out var value) && value.ValueKind == JsonValueKind.Number
            ? value.GetDouble()
            : null;
}
