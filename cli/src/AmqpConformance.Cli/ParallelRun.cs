using System.Diagnostics;
using System.Globalization;
using AmqpConformance.Properties;

namespace AmqpConformance.Cli;

/// <summary><c>run --parallel N</c>: the run cut into N shards of one seed (<see cref="CaseShard"/>), each judged by a
/// child process of this CLI (<see cref="ShardProcess"/>) with its own connections, broker state and scheduling-lag
/// meter, at the same time; their results merged as <c>merge</c> merges them (<see cref="MergeCommand.Merge"/>). Cases
/// run in separate processes, never side by side in one: the harness judges real-time bounds by how long its own
/// process could run, and the processes' contention is what the meter of each sees (decisions.md, "Shards from one
/// seed"). The verdict equals a sequential run's with the seed: for each property the failure of the lowest case
/// index, with its counterexample, shrink and replay token. With <c>--shard K/M</c> the N shards are that shard's parts
/// (<see cref="CaseShard.Split"/>: shards <c>K + (p - 1)M</c> of <c>MN</c>), and the merged verdict is shard K/M's, as
/// one process running it reports it, so it merges with the run's other shards.</summary>
internal static class ParallelRun
{
    /// <summary>The folder under the reports root that holds each shard's results (<c>shard-K.json</c>) and failure
    /// artifacts (<c>K/&lt;writer&gt;/&lt;invariant&gt;/</c>), or, for the parts of a shard, by each part's own shard of
    /// the run (<c>shard-K-of-N.json</c>, <c>K-of-N/...</c>); emptied at the start of a parallel run.</summary>
    public const string ShardsFolder = "parallel-shards";

    /// <summary>Reads <c>--parallel</c>: a number of processes (at least 1) or <c>auto</c>
    /// (<see cref="Environment.ProcessorCount"/>); null with <paramref name="problem"/> otherwise.</summary>
    public static int? ParseWorkers(string text, out string? problem)
    {
        problem = null;
        if (string.Equals(text.Trim(), "auto", StringComparison.OrdinalIgnoreCase))
            return Environment.ProcessorCount;
        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n >= 1)
            return n;
        problem = "expected a number of processes (at least 1) or auto (one per core).";
        return null;
    }

    /// <summary>Runs the shards and merges them. Returns the merged verdict's exit code (0 all hold, 1 a violation),
    /// 130 when <paramref name="cancellationToken"/> fired (the shards are killed), or, when a shard's process ended
    /// without results (a writer that crashed it, for one), that process's exit code after naming
    /// the shard and the last lines it wrote; the other shards are killed then.</summary>
    /// <param name="writers">The <c>--writer</c> values, passed on as they are.</param>
    /// <param name="cases">Cases per property.</param>
    /// <param name="invariants">The <c>--invariant</c> values.</param>
    /// <param name="seed">The run's seed; null: a fresh one, printed (never null with <paramref name="shard"/>).</param>
    /// <param name="shard">The shard of the run to run (<c>--shard</c>), cut into the processes' shards; null: the
    /// whole run.</param>
    /// <param name="workers">How many shards (and processes); at most as many as there are cases to run (of
    /// <paramref name="shard"/>, when given), and at least one.</param>
    /// <param name="reportRoot">The reports root (absolute; the caller has cleared its writers' stale reports).</param>
    /// <param name="jsonPath">Where the merged results go, or null.</param>
    /// <param name="junitPath">Where the merged verdict goes as JUnit XML, or null.</param>
    /// <param name="output">Progress lines and the merged verdict.</param>
    /// <param name="error">Errors.</param>
    /// <param name="cancellationToken">Stops the run.</param>
    public static async Task<int> RunAsync(
        IReadOnlyList<string> writers,
        int cases,
        IReadOnlyList<string> invariants,
        ulong? seed,
        CaseShard? shard,
        int workers,
        string reportRoot,
        string? jsonPath,
        string? junitPath,
        TextWriter output,
        TextWriter error,
        CancellationToken cancellationToken
    )
    {
        if (seed is null)
        {
            seed = (ulong)Random.Shared.NextInt64(long.MaxValue);
            output.WriteLine($"Seed {seed} (drawn for this run; repeat it with --seed {seed}).");
        }
        var whole = shard ?? new CaseShard(1, 1);
        int count = Math.Max(1, Math.Min(workers, whole.CasesThrough(cases - 1)));
        string folder = Path.Combine(reportRoot, ShardsFolder);
        ClearShardsFolder(folder);

        var shards = new List<ShardProcess>();
        var clock = Stopwatch.StartNew();
        try
        {
            foreach (var part in whole.Split(count))
            {
                // A part of a shard is named by its own shard of the run, never to be taken for the shard it is part of.
                string name = shard is null
                    ? part.Number.ToString(CultureInfo.InvariantCulture)
                    : FormattableString.Invariant($"{part.Number}-of-{part.Count}");
                string json = Path.Combine(folder, $"shard-{name}.json");
                string[] arguments =
                [
                    "run",
                    .. writers.SelectMany(w => new[] { "--writer", w }),
                    "--cases",
                    cases.ToString(CultureInfo.InvariantCulture),
                    .. invariants.SelectMany(i => new[] { "--invariant", i }),
                    "--seed",
                    seed.Value.ToString(CultureInfo.InvariantCulture),
                    "--shard",
                    part.ToString(),
                    "--report",
                    Path.Combine(folder, name),
                    "--json",
                    json,
                ];
                shards.Add(ShardProcess.Start(arguments, part, json));
            }
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            var (file, _) = ShardProcess.CliCommandLine();
            foreach (var started in shards)
                started.Dispose();
            return CliApplication.BadInput(error, $"--parallel: could not start {file} for a shard: {e.Message}");
        }
        using var stop = new Shards(shards);
        output.WriteLine(
            shard is null
                ? $"Running {count} shards of seed {seed} in parallel, one process each ({folder})."
                : $"Running shard {shard} of seed {seed} as {count} shards in parallel ({string.Join(", ", shards.Select(s => s.Shard))}), one process each ({folder})."
        );

        var running = shards.ToDictionary(s => (Task)s.Exited);
        var interruption = Task.Delay(Timeout.Infinite, cancellationToken);
        while (running.Count > 0)
        {
            var done = await Task.WhenAny(running.Keys.Append(interruption)).ConfigureAwait(false);
            if (done == interruption)
            {
                stop.KillAll();
                output.WriteLine($"Interrupted: the {running.Count} shard(s) still running were stopped.");
                return ExitCodes.Interrupted;
            }
            var finished = running[done];
            running.Remove(done);
            int code = await finished.Exited.ConfigureAwait(false);
            output.WriteLine(
                $"Shard {finished.Shard} finished (exit code {code}) after {clock.Elapsed.TotalSeconds:0.0} s."
            );
            if (code is ExitCodes.Ok or ExitCodes.Violation)
                continue;
            stop.KillAll();
            if (cancellationToken.IsCancellationRequested || code == ExitCodes.Interrupted)
                return ExitCodes.Interrupted;
            error.WriteLine(
                $"--parallel: shard {finished.Shard} ended with exit code {code} and no verdict; the other shards were stopped. Its last lines:"
            );
            error.WriteLine(finished.Tail());
            return code;
        }
        var elapsed = clock.Elapsed;
        return MergeCommand.Merge([.. shards.Select(s => s.Json)], output, error, jsonPath, elapsed, junitPath, shard);
    }

    /// <summary>Empties <paramref name="folder"/>, so it shows only this run's shards.</summary>
    private static void ClearShardsFolder(string folder)
    {
        try
        {
            if (Directory.Exists(folder))
                Directory.Delete(folder, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Best effort, like StaleReports: each shard overwrites its own results file, and merge reads only those.
        }
    }

    /// <summary>Kills every shard still running when the run ends, however it ends.</summary>
    private sealed class Shards(List<ShardProcess> shards) : IDisposable
    {
        public void KillAll()
        {
            foreach (var shard in shards)
                shard.Kill();
        }

        public void Dispose()
        {
            foreach (var shard in shards)
                shard.Dispose();
        }
    }
}
