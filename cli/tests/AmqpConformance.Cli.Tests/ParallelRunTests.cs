using System.CommandLine;
using System.Text.Json;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>run --parallel N</c>: N shards of one seed in N child processes, merged, give the verdict a run in one
/// process gives with that seed: the same failing property, counterexample, shrink and replay token for a broken
/// writer, the same cases for a correct one; a shard whose process dies is named with its last lines. With <c>--shard
/// K/M</c>, the shard's parts give the verdict of that shard in one process, and merge with the other shards into the
/// unsharded run's. The parent runs
/// in this test host, so the children are started as a test host would start them
/// (<see cref="ShardProcess.CliCommandLine"/>).</summary>
[Trait("Area", "Run")]
public sealed class ParallelRunTests : IDisposable
{
    /// <summary>A seed whose first failure of <see cref="RefusesFrameMaxFactory"/> in "command-shape" is neither the
    /// run's first case nor in shard 1 of 3 (checked below), and whose "order" fails first in another shard, so the merge
    /// has to pick among the shards.</summary>
    private const string Seed = "5";

    private readonly string _folder = Directory.CreateTempSubdirectory("amqpc-parallel-").FullName;

    public void Dispose()
    {
        try
        {
            Directory.Delete(_folder, recursive: true);
        }
        catch (IOException) { } // a temp folder still in use: the OS cleans its temp folder, and the test has its verdict
    }

    /// <summary>A deliberately broken factory, deterministic in the scenario alone: the inline reference writer, except
    /// for a frame_max that leaves 3 divided by 5, for which it makes no writer at all (it throws). A broken writer's
    /// violations can depend on timing (a command cancelled while it races its write may or may not go out), which
    /// would make the cases a run fails differ from run to run; which cases this one fails is fixed by the seed, and so
    /// is the shrink.</summary>
    public class RefusesFrameMaxFactory : FrameWriterFactory
    {
        public override string Name => "RefusesFrameMax";

        public override IFrameWriter CreateWriter(WriterContext context) =>
            context.FrameMax % 5 != 3
                ? WriterModes.Inline.CreateWriter(context)
                : throw new NotSupportedException($"frame_max {context.FrameMax}: no writer for this one.");
    }

    /// <summary><see cref="RefusesFrameMaxFactory"/> as a writer of its own for one test: the harness shrinks a
    /// writer's failure once per process, knowing the writer by its factory's type and name, so a test's run in this
    /// host would report its failure unshrunk after another test's run of the same writer.</summary>
    public sealed class ShardRefusesFrameMaxFactory : RefusesFrameMaxFactory
    {
        public override string Name => "ShardRefusesFrameMax";
    }

    /// <inheritdoc cref="ShardRefusesFrameMaxFactory"/>
    public sealed class MergeRefusesFrameMaxFactory : RefusesFrameMaxFactory
    {
        public override string Name => "MergeRefusesFrameMax";
    }

    private (int ExitCode, string Output, string Error, JsonElement Json) Run(string name, params string[] args)
    {
        string json = Path.Combine(_folder, name + ".json");
        var (code, output, error) = InProcessCli.Invoke(
            RunCommand.Create(),
            TimeSpan.FromMinutes(4),
            [.. args, "--json", json, "--report", Path.Combine(_folder, name)]
        );
        JsonElement results = File.Exists(json)
            ? JsonDocument.Parse(File.ReadAllText(json)).RootElement.Clone()
            : default;
        return (code, output, error, results);
    }

    private static JsonElement Property(JsonElement results, string property) =>
        results
            .GetProperty("writers")[0]
            .GetProperty("properties")
            .EnumerateArray()
            .Single(p => p.GetProperty("property").GetString() == property);

    /// <summary>The run of a broken writer (<see cref="RefusesFrameMaxFactory"/> or one of its own) the tests cut up:
    /// 8 cases of two properties with <see cref="Seed"/>.</summary>
    private static string[] BrokenRun<TFactory>()
        where TFactory : RefusesFrameMaxFactory =>
        [
            "--writer",
            $"{typeof(TFactory).Assembly.Location}:{typeof(TFactory).FullName}",
            "--cases",
            "8",
            "--invariant",
            "command-shape",
            "--invariant",
            "order",
            "--seed",
            Seed,
        ];

    /// <summary>Asserts that <paramref name="actual"/> reports the broken writer's properties as
    /// <paramref name="expected"/> does: each holding or failing at the same case (the same case count), with the same
    /// replay token and line; and, with <paramref name="shrink"/>, the first failing property ("command-shape") with
    /// the same counterexample and shrink too (the later one, "order", one process reports unshrunk, shrinking a
    /// writer's failure once, where a shard that did not see the first failure shrinks it). Returns "command-shape"'s
    /// case count.</summary>
    private static int AssertSameFailures(JsonElement expected, JsonElement actual, bool shrink = true)
    {
        Assert.False(Property(actual, "command-shape").GetProperty("holds").GetBoolean());
        foreach (string property in new[] { "command-shape", "order" })
        foreach (
            string field in new[] { "holds", "cases", "replay", "replayCommand" }.Concat(
                shrink && property == "command-shape" ? ["counterexample", "shrinks"] : []
            )
        )
            Assert.Equal(
                Property(expected, property).GetProperty(field).ToString(),
                Property(actual, property).GetProperty(field).ToString()
            );
        return Property(expected, "command-shape").GetProperty("cases").GetInt32();
    }

    [Fact]
    public void A_broken_writer_fails_in_parallel_with_the_counterexample_shrink_and_replay_of_one_process()
    {
        var sequential = Run("sequential", BrokenRun<RefusesFrameMaxFactory>());
        var parallel = Run("parallel", [.. BrokenRun<RefusesFrameMaxFactory>(), "--parallel", "3"]);

        Assert.True(sequential.ExitCode == 1, sequential.Output + sequential.Error);
        Assert.True(parallel.ExitCode == 1, parallel.Output + parallel.Error);
        int cases = AssertSameFailures(sequential.Json, parallel.Json);
        Assert.True(cases > 1 && (cases - 1) % 3 != 0, $"seed {Seed} fails at case {cases - 1}: pick another");
        var merged = Property(parallel.Json, "command-shape");
        Assert.Equal($"{(cases - 1) % 3 + 1}/3", merged.GetProperty("shard").GetString());
        Assert.Contains($"VIOLATED after {cases} case(s)", parallel.Output, StringComparison.Ordinal);
        Assert.Contains(merged.GetProperty("replayCommand").GetString()!, parallel.Output, StringComparison.Ordinal);
        // The later property's failure: one process reports it unshrunk, and the merged output says so.
        Assert.Contains("one process reports this failure unshrunk", parallel.Output, StringComparison.Ordinal);
        // Each shard's results (and artifacts: --report <reports>/parallel-shards/K) stay in files of its own.
        for (int k = 1; k <= 3; k++)
            Assert.True(File.Exists(Path.Combine(_folder, "parallel", ParallelRun.ShardsFolder, $"shard-{k}.json")));
    }

    [Fact]
    public void One_shard_in_parallel_reports_what_that_shard_reports_in_one_process()
    {
        string[] run = BrokenRun<ShardRefusesFrameMaxFactory>();
        var alone = Run("alone", [.. run, "--shard", "1/2"]);
        var parts = Run("parts", [.. run, "--shard", "1/2", "--parallel", "2"]);

        Assert.True(alone.ExitCode == 1, alone.Output + alone.Error);
        Assert.True(parts.ExitCode == 1, parts.Output + parts.Error); // --shard with --parallel is no longer refused
        Assert.Equal("1/2", parts.Json.GetProperty("shard").GetString());
        Assert.Equal(Seed, parts.Json.GetProperty("seed").ToString());
        // Counted as shard 1/2 counts its cases (the run's cases 0, 2, 4, ...), not as the run or a part does.
        int cases = AssertSameFailures(alone.Json, parts.Json);
        Assert.Contains($"VIOLATED after {cases} case(s)", parts.Output, StringComparison.Ordinal);
        Assert.Contains("Verdicts (shard 1/2 of seed", parts.Output, StringComparison.Ordinal);
        // The parts are shards 1/4 and 3/4 of the run, named so in their files and in the failure's own "shard".
        string part = $"{2 * ((cases - 1) % 2) + 1}/4";
        Assert.Equal(part, Property(parts.Json, "command-shape").GetProperty("shard").GetString());
        foreach (string name in new[] { "shard-1-of-4.json", "shard-3-of-4.json" })
            Assert.True(File.Exists(Path.Combine(_folder, "parts", ParallelRun.ShardsFolder, name)), name);
    }

    [Fact]
    public void A_shard_run_in_parallel_merges_with_the_other_shard_into_the_unsharded_runs_verdict()
    {
        // Only the failing cases and replay tokens are compared: "whole" and "second" run in this process, so the later
        // one reports the writer's failures unshrunk.
        string[] run = BrokenRun<MergeRefusesFrameMaxFactory>();
        var whole = Run("whole", run);
        var first = Run("first", [.. run, "--shard", "1/2", "--parallel", "2"]);
        var second = Run("second", [.. run, "--shard", "2/2"]);
        string json = Path.Combine(_folder, "merged.json");

        var (code, output, error) = ShardMergeTests.Invoke(
            MergeCommand.Create(),
            Path.Combine(_folder, "first.json"),
            Path.Combine(_folder, "second.json"),
            "--json",
            json
        );

        Assert.True(whole.ExitCode == 1, whole.Output + whole.Error);
        Assert.True(first.ExitCode is 0 or 1 && second.ExitCode is 0 or 1, first.Output + second.Output);
        Assert.True(code == 1, output + error);
        int cases = AssertSameFailures(
            whole.Json,
            JsonDocument.Parse(File.ReadAllText(json)).RootElement,
            shrink: false
        );
        Assert.Contains($"VIOLATED after {cases} case(s)", output, StringComparison.Ordinal);
    }

    [Fact]
    public void A_correct_writer_in_parallel_runs_the_cases_of_one_process()
    {
        string[] run = ["--writer", "background", "--cases", "12", "--invariant", "order", "--seed", "7"];
        var sequential = Run("sequential", run);
        var parallel = Run("parallel", [.. run, "--parallel", "2"]);

        Assert.True(sequential.ExitCode == 0, sequential.Output + sequential.Error);
        Assert.True(parallel.ExitCode == 0, parallel.Output + parallel.Error);
        Assert.Equal(12, Property(sequential.Json, "order").GetProperty("cases").GetInt32());
        Assert.Equal(12, Property(parallel.Json, "order").GetProperty("cases").GetInt32());
        Assert.True(parallel.Json.GetProperty("allHold").GetBoolean());
        Assert.Equal(7UL, parallel.Json.GetProperty("seed").GetUInt64());
        Assert.Contains("holds (12 cases)", parallel.Output, StringComparison.Ordinal);
        Assert.Contains("All properties hold in all 2 shard(s).", parallel.Output, StringComparison.Ordinal);
    }

    [Fact]
    public void A_shard_whose_process_dies_is_named_with_its_last_lines_and_its_exit_code()
    {
        string crashing =
            $"{typeof(CrashReportTests).Assembly.Location}:{typeof(CrashReportTests.CrashingFactory).FullName}";
        var (code, output, error, _) = Run(
            "crash",
            "--writer",
            crashing,
            "--cases",
            "4",
            "--invariant",
            "order",
            "--parallel",
            "2"
        );

        Assert.NotEqual(0, code);
        Assert.NotEqual(1, code);
        Assert.Contains("Seed ", output, StringComparison.Ordinal); // none was given: the drawn one is printed
        Assert.Matches(@"--parallel: shard [12]/2 ended with exit code \d+ and no verdict", error);
        Assert.Contains("THE WRITER UNDER TEST CRASHED THE PROCESS", error, StringComparison.Ordinal);
    }
}
