using System.CommandLine;
using System.Globalization;
using System.Text.Json;
using AmqpConformance.Properties;
using AmqpConformance.SelfTest;
using AmqpConformance.SelfTest.Zoo;
using Spectre.Console;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance selftest [--cases N] [--writer NAME ...] [--json FILE]</c>: runs the zoo of deliberately broken
/// writers (and the correct but unusual ones) through the conformance properties as a suite runs them, and prints the
/// kill matrix: writer, bug class, what caught it (property, invariants and rules), cases to failure, time. Exit 0 when
/// every broken writer was caught and every correct one held; 1 otherwise; 2 on bad input; 130 when interrupted.
/// </summary>
internal static class SelftestCommand
{
    public static Command Create()
    {
        var cases = new Option<int>("--cases")
        {
            Description = "Cases per property (the suites' default).",
            DefaultValueFactory = _ => PropertyRunOptions.DefaultCases,
        };
        var writer = new Option<string[]>("--writer")
        {
            Description =
                "Only this zoo writer (its name, with or without \"Zoo:\"), or, when no writer has that name, every zoo writer whose name contains it (repeatable); default: the whole zoo.",
            AllowMultipleArgumentsPerToken = true,
        };
        var json = new Option<string?>("--json") { Description = "Also write the kill matrix as JSON to this file." };
        var replays = new Option<int>("--replays")
        {
            Description =
                "Also replay each caught writer's failure this many times from its printed replay token and count how often it came back.",
        };
        var suite = new Option<bool>("--suite")
        {
            Description =
                "Run every property for each writer, as a client repository's suite does, and time how long it takes to end "
                + "(default: stop at the first failing property).",
        };
        var command = new Command(
            "selftest",
            "Run the zoo of deliberately broken writers through the properties and print the kill matrix."
        )
        {
            cases,
            writer,
            json,
            replays,
            suite,
        };
        command.SetAction(
            (parse, ct) =>
                RunAsync(
                    parse.GetValue(cases),
                    parse.GetValue(writer) ?? [],
                    parse.GetValue(json),
                    parse.GetValue(replays),
                    parse.InvocationConfiguration.Output,
                    parse.InvocationConfiguration.Error,
                    ct,
                    parse.GetValue(suite)
                )
        );
        return command;
    }

    internal static async Task<int> RunAsync(
        int cases,
        string[] writers,
        string? jsonPath,
        int replays,
        TextWriter output,
        TextWriter error,
        CancellationToken cancellationToken,
        bool wholeSuite = false
    )
    {
        if (cases < 1)
        {
            error.WriteLine($"selftest: --cases {cases}: must be at least 1.");
            return ExitCodes.BadInput;
        }
        if (replays < 0)
        {
            error.WriteLine($"selftest: --replays {replays}: must be 0 or more.");
            return ExitCodes.BadInput;
        }
        var entries = ZooWriters.All.Where(e => writers.Length == 0 || writers.Any(w => Selects(w, e.Name))).ToList();
        if (entries.Count == 0)
        {
            error.WriteLine($"selftest: --writer {string.Join(", ", writers)}: no zoo writer has that in its name.");
            return ExitCodes.BadInput;
        }
        var results = new List<KillResult>();
        var replayChecks = new Dictionary<string, ReplayCheck>();
        var interruption = Task.Delay(Timeout.Infinite, cancellationToken);
        foreach (var entry in entries)
        {
            var run = KillMatrix.RunAsync(entry, cases, cancellationToken, wholeSuite);
            if (await Task.WhenAny(run, interruption).ConfigureAwait(false) != run)
                break;
            var result = await run.ConfigureAwait(false);
            if (cancellationToken.IsCancellationRequested)
                break;
            results.Add(result);
            string replayNote = "";
            if (replays > 0 && KillMatrix.CheckReplay(result, replays) is { } check)
            {
                replayChecks[entry.Name] = check;
                replayNote =
                    $"; replay reproduced it {check.Reproduced}/{check.Replays} ({check.OnFirstAttempt} on the first attempt)";
            }
            string firstRed = result.FirstFailureAfter is { } red
                ? $", first failure after {red.TotalSeconds:0.0} s"
                : "";
            string ended = result.WholeSuite ? "suite ended after " : "";
            output.WriteLine(
                $"{entry.Name}: {Verdict(result)} ({result.CasesRun} cases{firstRed}, {ended}{result.Elapsed.TotalSeconds:0.0} s{replayNote})"
            );
        }
        Print(results, replayChecks, output);
        if (jsonPath is not null && !TryWriteJson(jsonPath, results, replayChecks, error))
            return ExitCodes.BadInput;
        if (cancellationToken.IsCancellationRequested)
        {
            output.WriteLine($"Interrupted: {results.Count} of {entries.Count} writers ran.");
            return ExitCodes.Interrupted;
        }
        return results.All(r => r.AsExpected) ? ExitCodes.Ok : ExitCodes.Violation;
    }

    /// <summary>Whether <c>--writer <paramref name="filter"/></c> selects the zoo writer <paramref name="name"/>: the
    /// writer of that exact name when there is one ("DelayedFlush" is Zoo:DelayedFlush alone, not also a
    /// Zoo:DelayedFlushLostWakeup), otherwise every writer whose name contains it. Case-insensitive.</summary>
    internal static bool Selects(string filter, string name)
    {
        static bool Names(string filter, string name) =>
            name.Equals(filter, StringComparison.OrdinalIgnoreCase)
            || name.Equals("Zoo:" + filter, StringComparison.OrdinalIgnoreCase);
        return ZooWriters.All.Any(e => Names(filter, e.Name))
            ? Names(filter, name)
            : name.Contains(filter, StringComparison.OrdinalIgnoreCase);
    }

    private static string Verdict(KillResult r) =>
        (r.Entry.IsCorrect, r.Caught) switch
        {
            (false, true) => "caught",
            (false, false) => "MISSED",
            (true, false) => "holds",
            (true, true) => "FALSE POSITIVE",
        };

    private static void Print(
        IReadOnlyList<KillResult> results,
        IReadOnlyDictionary<string, ReplayCheck> replays,
        TextWriter output
    )
    {
        var console = ConsoleStyle.For(output);
        console.Profile.Width = Math.Max(console.Profile.Width, 160);
        var table = new Table()
            .Title("Kill matrix")
            .AddColumns(
                "writer",
                "class",
                "verdict",
                "caught by",
                "cases",
                "first failure s",
                results.Any(r => r.WholeSuite) ? "suite s" : "seconds",
                "replays"
            );
        foreach (var r in results)
        {
            string verdict = r.AsExpected ? $"[green]{Verdict(r)}[/]" : $"[red]{Verdict(r)}[/]";
            string by = r.Failure is { } f ? $"{f.Invariant}: {string.Join(", ", r.Rules.Take(3))}" : "";
            table.AddRow(
                Markup.Escape(r.Entry.Name),
                r.Entry.Class.ToString(),
                verdict,
                Markup.Escape(by),
                r.CasesRun.ToString(CultureInfo.InvariantCulture),
                r.FirstFailureAfter?.TotalSeconds.ToString("0.0", CultureInfo.InvariantCulture) ?? "",
                r.Elapsed.TotalSeconds.ToString("0.0", CultureInfo.InvariantCulture),
                replays.TryGetValue(r.Entry.Name, out var c)
                    ? $"{c.Reproduced}/{c.Replays} ({c.OnFirstAttempt} first)"
                    : ""
            );
        }
        console.Write(table);
        var broken = results.Where(r => !r.Entry.IsCorrect).ToList();
        var correct = results.Where(r => r.Entry.IsCorrect).ToList();
        output.WriteLine(
            $"Broken writers caught: {broken.Count(r => r.Caught)}/{broken.Count}; correct writers holding: {correct.Count(r => !r.Caught)}/{correct.Count}; "
                + $"median cases to failure: {KillMatrix.MedianCasesToFailure(results)?.ToString("0.#", CultureInfo.InvariantCulture) ?? "-"}; "
                + $"{results.Sum(r => r.Elapsed.TotalSeconds):0} s in all."
                + (
                    replays.Count == 0
                        ? ""
                        : $" Replays reproducing >= 9/10: {replays.Values.Count(c => c.Reproduced * 10 >= c.Replays * 9)}/{replays.Count}."
                )
        );
        if (correct.Count > 0)
            output.WriteLine(
                $"Correct writers: {correct.Count(r => r.Caught)} false positive(s) in {correct.Sum(r => r.TotalCases)} cases."
            );
        var caught = broken.Where(r => r.Caught).ToList();
        if (caught.Count > 0)
            output.WriteLine(
                "Time to first failure (s): "
                    + Quantiles(caught.Select(r => r.FirstFailureAfter!.Value.TotalSeconds))
                    + (
                        caught.Any(r => r.WholeSuite)
                            ? "; time to the end of the suite (s): "
                                + Quantiles(caught.Select(r => r.Elapsed.TotalSeconds))
                            : ""
                    )
                    + "."
            );
    }

    private static string Quantiles(IEnumerable<double> seconds)
    {
        var all = seconds.ToList();
        static string F(double? v) => v?.ToString("0.0", CultureInfo.InvariantCulture) ?? "-";
        return $"p50 {F(KillMatrix.Quantile(all, 0.5))}, p95 {F(KillMatrix.Quantile(all, 0.95))}, max {F(KillMatrix.Quantile(all, 1))}";
    }

    private static bool TryWriteJson(
        string path,
        IReadOnlyList<KillResult> results,
        IReadOnlyDictionary<string, ReplayCheck> replays,
        TextWriter error
    )
    {
        var document = results.Select(r => new
        {
            writer = r.Entry.Name,
            @class = r.Entry.Class.ToString(),
            correct = r.Entry.IsCorrect,
            caught = r.Caught,
            asExpected = r.AsExpected,
            property = r.Failure?.Invariant,
            rules = r.Rules,
            casesToFailure = r.Caught ? r.CasesRun : (int?)null,
            casesRun = r.CasesRun,
            seconds = Math.Round(r.Elapsed.TotalSeconds, 3),
            firstFailureSeconds = r.FirstFailureAfter is { } red ? Math.Round(red.TotalSeconds, 3) : (double?)null,
            wholeSuite = r.WholeSuite,
            totalCases = r.TotalCases,
            properties = r.PropertyTimes.Select(t => new
            {
                property = t.Property,
                seconds = Math.Round(t.Elapsed.TotalSeconds, 3),
                holds = t.Holds,
            }),
            counterexample = r.Failure?.Counterexample?.ToString(),
            replay = r.Failure?.Replay?.ToString(),
            replayCheck = replays.GetValueOrDefault(r.Entry.Name),
            bug = r.Entry.Bug,
            trigger = r.Entry.Trigger,
        });
        try
        {
            string? folder = Path.GetDirectoryName(Path.GetFullPath(path));
            if (folder is not null)
                Directory.CreateDirectory(folder);
            File.WriteAllText(
                path,
                JsonSerializer.Serialize(document, new JsonSerializerOptions { WriteIndented = true })
            );
            return true;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            error.WriteLine($"selftest: --json {path}: {e.Message}");
            return false;
        }
    }
}
