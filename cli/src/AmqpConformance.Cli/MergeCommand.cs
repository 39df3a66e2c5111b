using System.CommandLine;
using System.Text.Json;
using Spectre.Console;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance merge FILE...</c>: combines the <c>run --json</c> results of the shards of one run (<c>--seed S
/// --shard K/N</c>) into one verdict table (property x writer: the cases every shard ran, and for a property that
/// failed anywhere, which shards failed and each failure's replay line) and one exit code: 0 when every property held
/// in every shard, 1 on any violation or interrupted shard, 2 on bad input (a file missing or unreadable, not a run's
/// results, shards of different seeds, case counts or shard counts, one shard twice), with one line saying what. A
/// shard that is missing is named, and the merge fails: a gate must not pass on a run that was not all there.
/// </summary>
internal static class MergeCommand
{
    /// <summary>The command with its argument.</summary>
    public static Command Create()
    {
        var files = new Argument<string[]>("files")
        {
            Description =
                "The --json result files of the shards (run --seed S --shard K/N --json FILE), one per shard.",
            Arity = ArgumentArity.OneOrMore,
        };
        var command = new Command("merge", "Combine the JSON results of a run's shards into one verdict and exit code.")
        {
            files,
        };
        command.SetAction(parse =>
            Merge(
                parse.GetValue(files) ?? [],
                parse.InvocationConfiguration.Output,
                parse.InvocationConfiguration.Error
            )
        );
        return command;
    }

    /// <summary>One shard's results as read from its file.</summary>
    private sealed record ShardResult(
        string File,
        ulong? Seed,
        Properties.CaseShard? Shard,
        int Cases,
        bool Interrupted,
        IReadOnlyList<PropertyResult> Properties
    );

    /// <summary>One property of one writer in one shard.</summary>
    private sealed record PropertyResult(
        string Writer,
        string Property,
        bool Holds,
        int Cases,
        string? Replay,
        IReadOnlyList<string> Rules
    );

    /// <summary>Merges <paramref name="files"/>; see the type's summary for the exit codes.</summary>
    internal static int Merge(string[] files, TextWriter output, TextWriter error)
    {
        var shards = new List<ShardResult>();
        foreach (string file in files)
        {
            if (Read(file, out string? problem) is not { } shard)
            {
                error.WriteLine(CliApplication.OneLine($"{file}: {problem}"));
                return ExitCodes.BadInput;
            }
            shards.Add(shard);
        }
        if (Inconsistency(shards) is { } inconsistent)
        {
            error.WriteLine(CliApplication.OneLine(inconsistent));
            return ExitCodes.BadInput;
        }

        var all = shards.SelectMany(s => s.Properties.Select(p => (Shard: s, Result: p))).ToList();
        var writers = all.Select(x => x.Result.Writer).Distinct().ToList();
        var properties = all.Select(x => x.Result.Property).Distinct().ToList();
        var console = ConsoleStyle.For(output);
        var first = shards[0];
        var table = new Table()
            .Title(
                first.Shard is null
                    ? "Verdicts (merged)"
                    : $"Verdicts (merged: {shards.Count} shards of seed {first.Seed})"
            )
            .AddColumn("property");
        foreach (string w in writers)
            table.AddColumn(Markup.Escape(w));
        bool allHold = shards.All(s => !s.Interrupted);
        var failures = new List<string>();
        foreach (string property in properties)
        {
            var cells = new List<string> { Markup.Escape(property) };
            foreach (string writer in writers)
            {
                var parts = all.Where(x => x.Result.Writer == writer && x.Result.Property == property).ToList();
                int cases = parts.Sum(x => x.Result.Cases);
                var failed = parts.Where(x => !x.Result.Holds).ToList();
                if (parts.Count < shards.Count)
                {
                    allHold = false;
                    cells.Add($"[yellow]ran in {parts.Count} of {shards.Count} shards[/]");
                }
                else if (failed.Count == 0)
                    cells.Add($"[green]holds[/] ({cases} cases)");
                else
                    cells.Add(
                        $"[red]VIOLATED[/] in {failed.Count} shard(s): {Markup.Escape(string.Join(", ", failed.SelectMany(f => f.Result.Rules).Distinct()))}"
                    );
                foreach (var f in failed)
                {
                    allHold = false;
                    failures.Add(
                        $"{writer} / {property} (shard {f.Shard.Shard?.ToString() ?? "-"}, {f.Shard.File}): {string.Join(", ", f.Result.Rules)}; "
                            + $"replay: amqp-conformance run --writer {writer} --invariant {property} --replay {f.Result.Replay}"
                    );
                }
            }
            table.AddRow([.. cells]);
        }
        console.Write(table);
        foreach (string failure in failures)
            output.WriteLine(failure);
        foreach (var s in shards.Where(s => s.Interrupted))
            output.WriteLine($"Shard {s.Shard?.ToString() ?? "-"} ({s.File}) was interrupted: its run is incomplete.");
        output.WriteLine(
            allHold
                ? $"All properties hold in all {shards.Count} shard(s)."
                : "Some properties do not hold, or the run is incomplete."
        );
        return allHold ? ExitCodes.Ok : ExitCodes.Violation;
    }

    /// <summary>Why these shards are not one run's, or null when they are: one seed, one case count, one shard count,
    /// each shard once, and none missing.</summary>
    private static string? Inconsistency(List<ShardResult> shards)
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
            var missing = Enumerable.Range(1, count).Except(parsed.Select(p => p.Shard.Number)).ToList();
            if (missing.Count > 0)
                return $"Shard(s) {string.Join(", ", missing.Select(m => $"{m}/{count}"))} missing: a merged verdict needs every shard of the run.";
        }
        return null;
    }

    /// <summary>Reads one <c>run --json</c> file; null with <paramref name="problem"/> when it cannot.</summary>
    private static ShardResult? Read(string file, out string? problem)
    {
        problem = null;
        try
        {
            using var document = JsonDocument.Parse(File.ReadAllText(file));
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
                    ? Properties.CaseShard.Parse(k.GetString()!)
                    : null;
            int cases =
                root.TryGetProperty("casesPerProperty", out var c) && c.ValueKind == JsonValueKind.Number
                    ? c.GetInt32()
                    : 0;
            bool interrupted = root.TryGetProperty("interrupted", out var i) && i.ValueKind == JsonValueKind.True;
            var results = new List<PropertyResult>();
            foreach (var writer in writers.EnumerateArray())
            {
                string name = writer.GetProperty("name").GetString() ?? "";
                foreach (var p in writer.GetProperty("properties").EnumerateArray())
                {
                    var rules =
                        p.TryGetProperty("violations", out var v) && v.ValueKind == JsonValueKind.Array
                            ? v.EnumerateArray()
                                .Select(x =>
                                    $"{x.GetProperty("invariant").GetString()}/{x.GetProperty("rule").GetString()}"
                                )
                                .Distinct()
                                .ToList()
                            : [];
                    results.Add(
                        new PropertyResult(
                            name,
                            p.GetProperty("property").GetString() ?? "",
                            p.GetProperty("holds").GetBoolean(),
                            p.GetProperty("cases").GetInt32(),
                            p.TryGetProperty("replay", out var r) && r.ValueKind == JsonValueKind.String
                                ? r.GetString()
                                : null,
                            rules
                        )
                    );
                }
            }
            return new ShardResult(file, seed, shard, cases, interrupted, results);
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
