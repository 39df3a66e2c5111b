using System.CommandLine;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance run --writer background|inline|coalescing|&lt;assembly-path&gt;:&lt;type&gt; [--writer ...]
/// --cases N [--invariant NAME ...] [--soak DURATION] [--replay seed,gamma,size] [--seed S [--shard K/N]] [--parallel
/// N|auto] [--report DIR] [--json FILE] [--junit FILE]</c>: checks the invariant properties against each writer with a
/// progress bar, prints a verdict table (invariant x writer, with cases/s), the events the cases produced and the
/// failure reports, and writes each failure's artifacts under DIR/&lt;writer&gt;/&lt;invariant&gt;/. Exit code 0 only
/// if every property holds; 1 on a violation; 2 on bad input; 130 when interrupted (Ctrl+C, SIGINT, SIGTERM), after
/// printing what had run (and writing it to the <c>--json</c> file and, as JUnit XML, the <c>--junit</c> file:
/// <see cref="JUnitReport"/>).
/// With <c>--parallel N</c>, runs N shards of one seed in N processes at once and merges them
/// (<see cref="ParallelRun"/>); with <c>--shard K/M</c> too, N parts of that shard, reported as shard K/M. With <c>--soak</c>, soaks each writer instead (<see cref="SoakSession"/>).
/// </summary>
/// <remarks>See <see cref="WriterResolver"/> for custom writers.</remarks>
internal static class RunCommand
{
    /// <summary>The command with its options.</summary>
    public static Command Create()
    {
        var writer = new Option<string[]>("--writer")
        {
            Description =
                "background, inline, coalescing, or <assembly-path>:<type> (your own FrameWriterFactory); repeat for several.",
            Required = true,
            AllowMultipleArgumentsPerToken = true,
        };
        var cases = new Option<int>("--cases")
        {
            Description = "Generated cases per property.",
            DefaultValueFactory = _ => 500,
        };
        var invariant = new Option<string[]>("--invariant")
        {
            Description =
                "Only these properties (default: one per invariant): "
                + string.Join(", ", InvariantNames.All)
                + $"; or \"{ConformanceProperties.AllAtOnce}\" for one property drawing from the mixed profile. Every case is judged on every invariant either way.",
            AllowMultipleArgumentsPerToken = true,
        };
        var replay = new Option<string?>("--replay")
        {
            Description = "Replay one failing case: the seed,gamma,size printed by a failure.",
        };
        var seed = new Option<ulong?>("--seed")
        {
            Description =
                "The run's seed (a number): every run with it generates the same cases, as the shards of one run must. Default: a fresh random start per property.",
        };
        var shard = new Option<string?>("--shard")
        {
            Description =
                "Run only shard K of N (K/N, from 1/N to N/N) of every property's cases; needs --seed. The N shards together run exactly the unsharded run's cases; combine their --json files with `amqp-conformance merge`.",
        };
        var parallel = new Option<string?>("--parallel")
        {
            Description =
                "Run the cases in N processes at once (N, or auto: one per core; default 1): the run cut into N shards of one seed (--seed, or a fresh one, printed), merged as `merge` does. Same verdict, counterexample, shrink and replay token as one process with that seed. With --shard K/M, runs that shard's cases in N processes and reports them as shard K/M (its --json merges with the other shards'). Not with --replay or --soak.",
        };
        var report = new Option<string?>("--report")
        {
            Description =
                "Folder for failure artifacts (default: $AMQP_CONFORMANCE_REPORTS or ./TestResults/amqp-conformance).",
        };
        var json = new Option<string?>("--json")
        {
            Description =
                "Also write the results (verdicts, violations, replay tokens, events, cases/s) as JSON to this file.",
        };
        var junit = new Option<string?>("--junit")
        {
            Description =
                "Also write the verdicts as JUnit XML to this file (for CI test reports): a test suite per writer, a test case per property, each failure with its replay line.",
        };
        var soak = new Option<string?>("--soak")
        {
            Description =
                "Soak instead: one writer over one long connection for this long (90s, 10m, 1h), rounds of concurrent publishes with stalls, checking that idle-time resources do not grow and calls keep completing.",
        };
        var command = new Command("run", "Run the frame-writer conformance properties and print a verdict table.")
        {
            soak,
            writer,
            cases,
            invariant,
            replay,
            seed,
            shard,
            parallel,
            report,
            json,
            junit,
        };
        command.SetAction(
            (parse, ct) =>
                RunAsync(
                    parse.GetValue(writer) ?? [],
                    parse.GetValue(cases),
                    parse.GetValue(invariant) ?? [],
                    parse.GetValue(replay),
                    parse.GetValue(report),
                    parse.GetValue(json),
                    parse.InvocationConfiguration.Output,
                    parse.InvocationConfiguration.Error,
                    ct,
                    parse.GetValue(seed),
                    parse.GetValue(shard),
                    parse.GetValue(soak),
                    parse.GetValue(parallel),
                    parse.GetValue(junit)
                )
        );
        return command;
    }

    /// <summary>Runs the check. Returns 0 when every property held, 1 on any violation, 2 on bad input (reason on
    /// <paramref name="error"/>), 130 when <paramref name="cancellationToken"/> fired (after printing the properties
    /// that had finished).</summary>
    internal static async Task<int> RunAsync(
        string[] writers,
        int cases,
        string[] invariants,
        string? replay,
        string? reportRoot,
        string? jsonPath,
        TextWriter output,
        TextWriter error,
        CancellationToken cancellationToken,
        ulong? seed = null,
        string? shardText = null,
        string? soakText = null,
        string? parallelText = null,
        string? junitPath = null
    )
    {
        var soakDuration = TimeSpan.Zero;
        if (soakText is not null && !SoakDuration.TryParse(soakText, out soakDuration))
        {
            error.WriteLine($"--soak {soakText}: {SoakDuration.Expected}.");
            return 2;
        }
        if (cases < 1)
        {
            error.WriteLine($"--cases {cases}: must be at least 1.");
            return 2;
        }
        var factories = new List<FrameWriterFactory>();
        foreach (string spec in writers)
        {
            if (!WriterResolver.TryResolve(spec, out var factory, out string? problem))
            {
                error.WriteLine(CliApplication.OneLine($"--writer {spec}: {problem}"));
                return 2;
            }
            factories.Add(factory!);
        }
        if (factories.Count == 0)
        {
            error.WriteLine(
                "--writer: name at least one writer (background, inline, coalescing or <assembly-path>:<type>)."
            );
            return 2;
        }
        int workers = 1;
        if (parallelText is not null)
        {
            if (ParallelRun.ParseWorkers(parallelText, out string? problem) is not { } n)
                return CliApplication.BadInput(error, $"--parallel {parallelText}: {problem}");
            workers = n;
            string? conflict =
                soakText is not null ? "a soak is one long connection, not cases to share out; drop --parallel."
                : replay is not null ? "a replay runs one case; drop --parallel."
                : null;
            if (conflict is not null)
                return CliApplication.BadInput(error, $"--parallel {parallelText}: {conflict}");
        }
        if (soakText is not null)
            return await SoakSession.RunAsync(factories, soakDuration, output, cancellationToken).ConfigureAwait(false);
        var unknown = invariants
            .Where(i => !InvariantNames.All.Contains(i) && i != ConformanceProperties.AllAtOnce)
            .ToList();
        if (unknown.Count > 0)
        {
            error.WriteLine(
                $"--invariant {string.Join(", ", unknown)}: unknown; known: {string.Join(", ", InvariantNames.All)}, {ConformanceProperties.AllAtOnce}."
            );
            return 2;
        }
        ReplayToken? token = null;
        if (replay is not null)
        {
            try
            {
                token = ReplayToken.Parse(replay);
            }
            catch (FormatException e)
            {
                error.WriteLine($"--replay: {e.Message}");
                return 2;
            }
        }
        CaseShard? shard = null;
        if (shardText is not null)
        {
            try
            {
                shard = CaseShard.Parse(shardText);
            }
            catch (FormatException e)
            {
                error.WriteLine($"--shard: {e.Message}");
                return 2;
            }
            if (seed is null)
            {
                error.WriteLine(
                    $"--shard {shardText}: needs --seed too, the same for every shard, or the shards would not run the same cases."
                );
                return 2;
            }
            if (token is not null)
            {
                error.WriteLine($"--shard {shardText}: a replay runs one case; drop --shard.");
                return 2;
            }
        }
        if (jsonPath is not null && ResultsFile.Problem(jsonPath) is { } jsonProblem)
        {
            error.WriteLine($"--json {jsonPath}: {jsonProblem}");
            return 2;
        }
        if (junitPath is not null && ResultsFile.Problem(junitPath) is { } junitProblem)
            return CliApplication.BadInput(error, $"--junit {junitPath}: {junitProblem}");
        IReadOnlyList<string> selected =
            invariants.Length == 0
                ? InvariantNames.All
                : [.. InvariantNames.All.Append(ConformanceProperties.AllAtOnce).Where(invariants.Contains)];
        string root = reportRoot is null ? ConformanceArtifacts.DefaultRoot() : Path.GetFullPath(reportRoot);
        // The start of a run: each writer's reports from an earlier run go, so the folder shows only this run's
        // failures.
        foreach (FrameWriterFactory factory in factories)
            StaleReports.ClearOnce(factory.Name, root);

        if (workers > 1)
            return await ParallelRun
                .RunAsync(
                    writers,
                    cases,
                    invariants,
                    seed,
                    shard,
                    workers,
                    root,
                    jsonPath,
                    junitPath,
                    output,
                    error,
                    cancellationToken
                )
                .ConfigureAwait(false);

        var session = new RunSession(factories, selected, cases, token, root, writers) { Seed = seed, Shard = shard };
        var results = await session.RunAsync(output, cancellationToken).ConfigureAwait(false);
        var rendered = new RunReport(results, factories, selected, session.ReplayHint)
        {
            Seed = seed,
            Shard = shard,
            CasesPerProperty = cases,
            ReplayCommand = session.ReplayCommand,
        };
        rendered.Write(output);
        if (jsonPath is not null)
        {
            try
            {
                rendered.WriteJson(jsonPath);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                error.WriteLine($"--json {jsonPath}: {e.Message}");
                return 2;
            }
        }
        if (junitPath is not null)
        {
            try
            {
                rendered.WriteJUnit(junitPath);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                return CliApplication.BadInput(error, $"--junit {junitPath}: {e.Message}");
            }
        }
        if (results.Interrupted)
            return ExitCodes.Interrupted;
        return rendered.AllHold ? 0 : 1;
    }
}
