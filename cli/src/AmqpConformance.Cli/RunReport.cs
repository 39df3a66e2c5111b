using System.Text.Json;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties;
using AmqpConformance.Properties.Running;
using Spectre.Console;

namespace AmqpConformance.Cli;

/// <summary>Renders a run's results: the verdict table (property x writer, with cases/s), the events table (what the
/// cases put each writer through), the failure reports, a closing line; and the same as JSON and as JUnit XML (the
/// table, the reports and the JUnit file from one list of <see cref="PropertyVerdict"/>s).</summary>
internal sealed class RunReport(
    RunResults results,
    IReadOnlyList<FrameWriterFactory> factories,
    IReadOnlyList<string> properties,
    Func<FrameWriterFactory, PropertyOutcome, string> replayHint
)
{
    /// <summary>The run's seed, if it had one (written to the JSON, which <c>merge</c> checks across shards).</summary>
    public ulong? Seed { get; init; }

    /// <summary>The run's shard, if it ran one.</summary>
    public CaseShard? Shard { get; init; }

    /// <summary>The cases per property the run generated (a shard ran its slice of them).</summary>
    public int CasesPerProperty { get; init; }

    /// <summary>The command line that replays a failure, written to the JSON as <c>replayCommand</c> (which
    /// <c>merge</c> prints); null: none is written.</summary>
    public Func<FrameWriterFactory, PropertyOutcome, string>? ReplayCommand { get; init; }

    /// <summary>Each selected property of each writer (writer by writer, in the order given), as the verdict table,
    /// the failure reports and the JUnit file show it.</summary>
    public IReadOnlyList<PropertyVerdict> Verdicts =>
        _verdicts ??= [.. factories.SelectMany(f => properties.Select(p => VerdictOf(f, p)))];

    private IReadOnlyList<PropertyVerdict>? _verdicts;

    /// <summary>Whether every selected property ran and held for every writer.</summary>
    public bool AllHold =>
        !results.Interrupted
        && results.Outcomes.Count == factories.Count * properties.Count
        && results.Outcomes.Values.All(o => o.Holds);

    /// <summary>Prints the tables, the failure reports and the closing line.</summary>
    public void Write(TextWriter output)
    {
        var console = ConsoleStyle.For(output);
        var verdicts = new Table()
            .Title(Shard is null ? "Verdicts" : $"Verdicts (shard {Shard} of seed {Seed})")
            .AddColumn("property");
        foreach (var f in factories)
            verdicts.AddColumn(Markup.Escape(f.Name));
        foreach (string property in properties)
        {
            var cells = new List<string> { property };
            foreach (var f in factories)
            {
                var v = Verdicts.First(x => x.Writer == f.Name && x.Property == property);
                if (v.NotRun is { } why)
                    cells.Add(results.Interrupted ? $"[yellow]{why}[/]" : $"[grey]{why}[/]");
                else if (v.Finding is { } finding)
                    cells.Add($"[red]VIOLATED[/] {Markup.Escape(finding)}");
                else
                    cells.Add($"[green]holds[/] ({v.Cases} cases, {v.Seconds.GetValueOrDefault():0.0} s)");
            }
            verdicts.AddRow([.. cells]);
        }
        verdicts.AddRow([
            .. new[] { "[bold]cases/s[/]" }.Concat(
                factories.Select(f => CasesPerSecond(f) is { } rate ? $"{rate:0.0}" : "-")
            ),
        ]);
        console.Write(verdicts);

        var events = new Table().Title("Events (what the cases put each writer through)").AddColumn("event");
        foreach (var f in factories)
            events.AddColumn(Markup.Escape(f.Name));
        var totals = factories.ToDictionary(f => f.Name, EventsOf);
        foreach (var kind in RunEvents.All)
            events.AddRow([
                .. new[] { RunEvents.NameOf(kind) }.Concat(
                    factories.Select(f =>
                        totals[f.Name][kind].ToString(System.Globalization.CultureInfo.InvariantCulture)
                    )
                ),
            ]);
        console.Write(events);

        foreach (var report in Verdicts.Select(v => v.Report).OfType<string>())
        {
            output.WriteLine();
            output.WriteLine(report);
        }
        output.WriteLine(
            results.Interrupted
                ? $"Interrupted: {results.Outcomes.Count} of {factories.Count * properties.Count} properties ran."
            : AllHold ? "All properties hold."
            : "Some properties do not hold."
        );
    }

    /// <summary>Writes the results as JSON to <paramref name="path"/>.</summary>
    public void WriteJson(string path)
    {
        var document = new
        {
            allHold = AllHold,
            interrupted = results.Interrupted,
            seed = Seed,
            shard = Shard?.ToString(),
            casesPerProperty = CasesPerProperty,
            writers = factories.Select(f => new
            {
                name = f.Name,
                casesPerSecond = CasesPerSecond(f),
                events = EventsOf(f).ToDictionary(),
                properties = properties
                    .Where(p => results.Outcomes.ContainsKey((f.Name, p)))
                    .Select(p => results.Outcomes[(f.Name, p)])
                    .Select(o => new
                    {
                        property = o.Invariant,
                        holds = o.Holds,
                        cases = o.CasesRun,
                        seconds = Math.Round(o.Elapsed.TotalSeconds, 3),
                        violatedInvariants = o.ViolatedInvariants,
                        counterexample = o.Counterexample?.ToString(),
                        // A case on several connections: the one (1-based) whose violations and artifacts these are.
                        connection = o.Run is { Scenario.Connections: > 1 } run ? run.Connection + 1 : (int?)null,
                        shrinks = o.Shrinks,
                        violations = o.Verdict?.Violations.Select(v => new
                        {
                            invariant = v.Invariant,
                            rule = v.Rule,
                            message = v.Message,
                            cause = v.Cause,
                            calls = v.Calls,
                            frames = v.Frames,
                        }),
                        replay = o.Replay?.ToString(),
                        replayCommand = o.Holds || ReplayCommand is null ? null : ReplayCommand(f, o),
                        artifacts = o.ArtifactFolder,
                        events = o.Events.ToDictionary(),
                    }),
            }),
        };
        string? folder = Path.GetDirectoryName(Path.GetFullPath(path));
        if (folder is not null)
            Directory.CreateDirectory(folder);
        File.WriteAllText(path, JsonSerializer.Serialize(document, new JsonSerializerOptions { WriteIndented = true }));
    }

    /// <summary>Writes the results as JUnit XML to <paramref name="path"/> (<see cref="JUnitReport"/>), from
    /// <see cref="Verdicts"/>.</summary>
    /// <exception cref="IOException">The file could not be written.</exception>
    /// <exception cref="UnauthorizedAccessException">The file could not be written.</exception>
    public void WriteJUnit(string path) =>
        new JUnitReport(Verdicts)
        {
            Seed = Seed,
            Shard = Shard?.ToString(),
            CasesPerProperty = CasesPerProperty,
            Interrupted = results.Interrupted,
        }.Write(path);

    private PropertyVerdict VerdictOf(FrameWriterFactory factory, string property)
    {
        var verdict = new PropertyVerdict(factory.Name, property);
        if (!results.Outcomes.TryGetValue((factory.Name, property), out var o))
            return verdict with { NotRun = results.Interrupted ? "interrupted" : "not run" };
        return verdict with
        {
            Cases = o.CasesRun,
            Seconds = o.Elapsed.TotalSeconds,
            Finding = o.Holds ? null : $"after {o.CasesRun} case(s): {string.Join(", ", o.ViolatedInvariants)}",
            Report = o.Holds ? null : o.Describe(replayHint(factory, o)),
        };
    }

    private RunEvents EventsOf(FrameWriterFactory factory)
    {
        var sum = new RunEvents();
        foreach (var o in results.Outcomes.Where(o => o.Key.Writer == factory.Name))
            sum.Add(o.Value.Events);
        return sum;
    }

    private double? CasesPerSecond(FrameWriterFactory factory)
    {
        var mine = results.Outcomes.Where(o => o.Key.Writer == factory.Name).Select(o => o.Value).ToList();
        double seconds = mine.Sum(o => o.Elapsed.TotalSeconds);
        return mine.Count == 0 || seconds <= 0 ? null : Math.Round(mine.Sum(o => o.CasesRun) / seconds, 1);
    }
}
