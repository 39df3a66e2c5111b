using System.CommandLine;
using System.Text.Json;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>run --seed S --shard K/N --json FILE</c> and <c>merge FILE...</c>: three shards of a run, merged, give
/// the unsharded run's verdict over the same number of cases; a violation in one shard fails the merge with its replay
/// line; files that are not one run's shards are refused with one line and exit 2.</summary>
[Trait("Area", "Run")]
public sealed class ShardMergeTests : IDisposable
{
    private readonly ScratchFolder _scratch = new("amqpc-shards-");

    private string _folder => _scratch.Path;

    public void Dispose() => _scratch.Dispose();

    /// <summary>Runs <paramref name="command"/> (<c>run</c>, <c>merge</c>) with <paramref name="args"/> in this process;
    /// its exit code and what it wrote.</summary>
    internal static (int ExitCode, string Output, string Error) Invoke(Command command, params string[] args) =>
        InProcessCli.Invoke(command, TimeSpan.FromMinutes(3), args);

    private string Run(string writer, string? shard, string name, int expectedExit)
    {
        string json = Path.Combine(_folder, name + ".json");
        string[] sharding = shard is null ? [] : ["--shard", shard];
        var (code, output, error) = Invoke(
            RunCommand.Create(),
            [
                "--writer",
                writer,
                "--cases",
                "30",
                "--invariant",
                "order",
                "--invariant",
                "faults",
                "--seed",
                "20261206",
                .. sharding,
                "--json",
                json,
                "--report",
                Path.Combine(_folder, "reports"),
            ]
        );
        Assert.True(code == expectedExit, $"exit {code}\n{output}\n{error}");
        return json;
    }

    private static Dictionary<string, int> CasesByProperty(string json)
    {
        using var document = JsonDocument.Parse(File.ReadAllText(json));
        return document
            .RootElement.GetProperty("writers")[0]
            .GetProperty("properties")
            .EnumerateArray()
            .ToDictionary(p => p.GetProperty("property").GetString()!, p => p.GetProperty("cases").GetInt32());
    }

    [Fact]
    public void Three_shards_merged_give_the_unsharded_runs_verdict_over_the_same_cases()
    {
        string whole = Run("background", null, "whole", 0);
        string[] shards =
        [
            Run("background", "1/3", "s1", 0),
            Run("background", "2/3", "s2", 0),
            Run("background", "3/3", "s3", 0),
        ];

        var (code, output, error) = Invoke(MergeCommand.Create(), shards);
        Assert.True(code == 0, output + error);
        Assert.Contains("All properties hold in all 3 shard(s).", output, StringComparison.Ordinal);
        var wholeCases = CasesByProperty(whole);
        var perShard = shards.Select(CasesByProperty).ToList();
        foreach (var (property, cases) in wholeCases)
        {
            Assert.Equal(cases, perShard.Sum(s => s[property]));
            Assert.Contains($"holds ({cases} cases)", output, StringComparison.Ordinal);
        }
        Assert.Equal([10, 10, 10], perShard.Select(s => s["order"]));
    }

    [Fact]
    public void A_violation_in_one_shard_fails_the_merge_and_keeps_its_replay_line()
    {
        string writer =
            $"{typeof(ShardsDropBodiesFactory).Assembly.Location}:{typeof(ShardsDropBodiesFactory).FullName}";
        string[] shards = [Run(writer, "1/2", "b1", 1), Run(writer, "2/2", "b2", 1)];

        var (code, output, _) = Invoke(MergeCommand.Create(), shards);
        Assert.Equal(1, code);
        Assert.Contains("VIOLATED", output, StringComparison.Ordinal);
        Assert.Contains("--replay ", output, StringComparison.Ordinal);
        Assert.Contains("Some properties do not hold", output, StringComparison.Ordinal);
    }

    /// <summary><see cref="RunCommandTests.DropsBodiesFactory"/> as a writer of its own: the harness remembers a
    /// writer's shrunk failure process-wide by its factory's type and name, and this class's runs of it made
    /// RunCommandTests' report it unshrunk.</summary>
    public sealed class ShardsDropBodiesFactory : RunCommandTests.DropsBodiesFactory
    {
        public override string Name => "ShardsDropBodies";
    }

    [Fact]
    public void Files_that_are_not_one_runs_shards_are_refused_with_one_line()
    {
        Directory.CreateDirectory(_folder);
        string s1 = Run("background", "1/2", "r1", 0);
        string whole = Run("background", null, "r0", 0);
        string junk = Path.Combine(_folder, "junk.json");
        File.WriteAllText(junk, "{\"not\": \"a run\"}");

        foreach (
            var (files, expected) in new (string[], string)[]
            {
                ([s1], "missing"), // shard 2/2 never ran
                ([s1, s1], "given twice"),
                ([s1, whole], "is not a shard"),
                ([s1, junk], "not the results of a run"),
                ([s1, Path.Combine(_folder, "absent.json")], "absent.json"),
            }
        )
        {
            var (code, _, error) = Invoke(MergeCommand.Create(), files);
            Assert.Equal(2, code);
            Assert.Contains(expected, error, StringComparison.Ordinal);
            Assert.Single(error.Trim().Split('\n'));
        }
    }

    [Fact]
    public void A_shard_without_a_seed_or_out_of_range_is_bad_input()
    {
        Assert.Equal(2, Invoke(RunCommand.Create(), "--writer", "background", "--shard", "1/3").ExitCode);
        Assert.Equal(
            2,
            Invoke(RunCommand.Create(), "--writer", "background", "--shard", "4/3", "--seed", "1").ExitCode
        );
        Assert.Equal(
            2,
            Invoke(RunCommand.Create(), "--writer", "background", "--shard", "0/3", "--seed", "1").ExitCode
        );
    }
}
