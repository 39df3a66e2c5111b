using System.CommandLine;
using AmqpConformance.Properties;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance merge FILE... [--json FILE] [--junit FILE]</c>: combines the <c>run --json</c> results
/// of the shards of one run (<c>--seed S --shard K/N</c>) into one verdict table (<see cref="MergedVerdict"/>: property
/// x writer, the cases every shard ran, and for a property that failed anywhere the failure an unsharded run with the
/// seed reports, the lowest case index, with its counterexample and replay line, then the other shards' failures) and
/// one exit code: 0 when every property held in every shard, 1 on any violation or interrupted shard, 2 on bad input (a
/// file missing or unreadable, not a run's results, shards of different seeds, case counts or shard counts, one shard
/// twice), with one line saying what. A shard that is missing is named, and the merge fails: a gate must not pass on a
/// run that was not all there. <c>--junit FILE</c> writes the merged verdict as JUnit XML (<see cref="JUnitReport"/>):
/// a path that cannot take it is refused before the table is printed. <c>run --parallel</c> merges its shards with the
/// same code.
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
        var json = new Option<string?>("--json")
        {
            Description =
                "Also write the merged results as JSON to this file, in the shape of an unsharded run's --json.",
        };
        var junit = new Option<string?>("--junit")
        {
            Description =
                "Also write the merged verdict as JUnit XML to this file: a test suite per writer, a test case per property, each failure with its replay line.",
        };
        var command = new Command("merge", "Combine the JSON results of a run's shards into one verdict and exit code.")
        {
            files,
            json,
            junit,
        };
        command.SetAction(parse =>
            Merge(
                parse.GetValue(files) ?? [],
                parse.InvocationConfiguration.Output,
                parse.InvocationConfiguration.Error,
                parse.GetValue(json),
                junitPath: parse.GetValue(junit)
            )
        );
        return command;
    }

    /// <summary>Merges <paramref name="files"/>, and writes the merged results to <paramref name="jsonPath"/> and as
    /// JUnit XML to <paramref name="junitPath"/> when given; see the type's summary for the exit codes (a JSON or JUnit
    /// file that cannot be written is bad input).
    /// <paramref name="wall"/>: how long the shards took side by side (<c>run --parallel</c>), for a cases/s
    /// line. <paramref name="of"/>: the shard of the run the files are the parts of (<c>run --shard K/M --parallel
    /// N</c>: <see cref="CaseShard.Split"/>), whose verdict the merge then reports (<see cref="MergedVerdict.Of"/>);
    /// null: the files are the whole run's shards.</summary>
    internal static int Merge(
        string[] files,
        TextWriter output,
        TextWriter error,
        string? jsonPath = null,
        TimeSpan? wall = null,
        string? junitPath = null,
        CaseShard? of = null
    )
    {
        var shards = new List<ShardResults>();
        foreach (string file in files)
        {
            if (ShardResults.Read(file, out string? problem) is not { } shard)
                return CliApplication.BadInput(error, $"{file}: {problem}");
            shards.Add(shard);
        }
        if (ShardResults.Inconsistency(shards, of) is { } inconsistent)
            return CliApplication.BadInput(error, inconsistent);
        if (junitPath is not null && ResultsFile.Problem(junitPath) is { } junitProblem)
            return CliApplication.BadInput(error, $"--junit {junitPath}: {junitProblem}");

        var verdict = new MergedVerdict(shards) { Wall = wall, Of = of };
        verdict.Write(output);
        if (jsonPath is not null)
        {
            try
            {
                verdict.WriteJson(jsonPath);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                return CliApplication.BadInput(error, $"--json {jsonPath}: {e.Message}");
            }
        }
        if (junitPath is not null)
        {
            try
            {
                verdict.WriteJUnit(junitPath);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                return CliApplication.BadInput(error, $"--junit {junitPath}: {e.Message}");
            }
        }
        return verdict.AllHold ? ExitCodes.Ok : ExitCodes.Violation;
    }
}
