using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using AmqpConformance.Benchmarks;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Benchmarks;

/// <summary>
/// The case-throughput benchmark's program as a callable (<see cref="CaseThroughputBenchmark"/>). Parsed with
/// System.CommandLine (<c>--help</c>); bad input is one line on standard error and exit code 2, and nothing runs.
/// </summary>
public static class BenchmarkProgram
{
    /// <summary>The program's name as its errors and help name it.</summary>
    public const string Name = "AmqpConformance.Properties.Benchmarks";

    /// <summary>Parses <paramref name="args"/> and runs the benchmark. Help and parse errors go to
    /// <paramref name="output"/> and <paramref name="error"/>; the benchmark prints its figures to the console. Returns
    /// the exit code: 2 after one line on <paramref name="error"/> when the arguments are wrong.</summary>
    public static Task<int> RunAsync(string[] args, TextWriter output, TextWriter error) =>
        BenchCommandLine.RunAsync(CreateRoot(), Name, args, output, error);

    private static RootCommand CreateRoot()
    {
        var cases = BenchCommandLine.Number("--cases", "Scenarios per mode.", 300);
        var writers = new Option<string[]>("--writer")
        {
            Description =
                $"Only this reference writer ({string.Join(", ", WriterModes.All.Select(f => f.Name))}); repeatable. Default: all three.",
            HelpName = "NAME",
        };
        writers.Validators.Add(result =>
        {
            foreach (string name in result.Tokens.Select(t => t.Value))
                if (!WriterModes.All.Any(f => string.Equals(f.Name, name, StringComparison.OrdinalIgnoreCase)))
                    result.AddError(
                        $"--writer {name}: no reference writer of that name; known: {string.Join(", ", WriterModes.All.Select(f => f.Name))}"
                    );
        });
        var profile = new Option<string>("--profile")
        {
            Description =
                "An invariant's generation profile, \"mixed\" (the default generation mix) or \"legacy-free\" (free-running cases only, "
                + "the pre-rework mix: no scripts, default queue and threshold), to compare with the runner before scripts existed.",
            HelpName = "mixed|legacy-free|INVARIANT",
            DefaultValueFactory = _ => "mixed",
        };
        profile.Validators.Add(result =>
        {
            string name = result.GetValueOrDefault<string>();
            if (name is not ("mixed" or "legacy-free") && !InvariantNames.All.Contains(name))
                result.AddError(
                    $"--profile {name}: not mixed, legacy-free or an invariant ({string.Join(", ", InvariantNames.All)})"
                );
        });
        var reactionWait = Milliseconds(
            "--fault-reaction-wait",
            "WriterRunOptions.FaultReactionWait for every case (default: the option's default); 0 runs cases as the harness did before that wait existed."
        );
        var graceWindow = Milliseconds(
            "--grace-window",
            "WriterRunOptions.FaultGraceQuietWindow for every case (default: the option's default); 0 waits each fault grace's whole FaultGraceRealWait, as before the window existed."
        );
        var graceWait = Milliseconds(
            "--grace-wait",
            "WriterRunOptions.FaultGraceRealWait for every case (default: the option's default); 0 gives a writer no real time after a fault before the clock skips the grace."
        );
        var warmup = BenchCommandLine.Number(
            "--warmup",
            "First run the first N scenarios through every selected mode, unmeasured, so the JIT is paid before the first measured row (its wall and JIT time on a line of their own).",
            0,
            min: 0
        );
        var root = new RootCommand(
            "Case throughput of the writer-level runner: the same generated scenarios (fixed seed, sizes ramping 1..100 as in an FsCheck run) through "
                + "each reference writer, every invariant checked on each case; cases/s per mode and where the time goes (generation, open, drive, finish, "
                + "evidence, check, skipped case-clock time, CPU, JIT, GC), then the same by kind of scenario."
        )
        {
            cases,
            writers,
            profile,
            reactionWait,
            graceWindow,
            graceWait,
            warmup,
        };
        root.SetAction(parse =>
        {
            string[] names = parse.GetValue(writers) ?? [];
            var factories = WriterModes
                .All.Where(f => names.Length == 0 || names.Contains(f.Name, StringComparer.OrdinalIgnoreCase))
                .ToList();
            var runOptions = WriterRunOptions.Default;
            if (parse.GetValue(reactionWait) is { } reaction)
                runOptions = runOptions with { FaultReactionWait = reaction };
            if (parse.GetValue(graceWindow) is { } window)
                runOptions = runOptions with { FaultGraceQuietWindow = window };
            if (parse.GetValue(graceWait) is { } wait)
                runOptions = runOptions with { FaultGraceRealWait = wait };
            return CaseThroughputBenchmark.RunAsync(
                new CaseThroughputOptions(
                    parse.GetValue(cases),
                    parse.GetValue(warmup),
                    factories,
                    Profile(parse.GetValue(profile)!),
                    runOptions
                )
            );
        });
        return root;
    }

    private static ScenarioProfile Profile(string name) =>
        name switch
        {
            "mixed" => ScenarioProfile.Mixed,
            "legacy-free" => ScenarioProfile.Mixed with
            {
                Name = "legacy-free",
                Scripted = 0,
                SmallQueue = 0,
                SmallThreshold = 0,
                Noise = 0,
                TransportStall = 0,
            },
            _ => ScenarioProfile.For(name),
        };

    /// <summary>An option taking a number of milliseconds, 0 or more (fractions allowed); null when not
    /// given.</summary>
    private static Option<TimeSpan?> Milliseconds(string name, string description) =>
        new(name)
        {
            Description = description,
            HelpName = "MS",
            CustomParser = result =>
            {
                string text = result.Tokens[0].Value;
                if (
                    double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double ms)
                    && ms >= 0
                    && double.IsFinite(ms)
                    && ms <= TimeSpan.MaxValue.TotalMilliseconds / 2
                )
                    return TimeSpan.FromMilliseconds(ms);
                result.AddError($"{name} {text}: not a number of milliseconds, 0 or more");
                return null;
            },
        };
}
