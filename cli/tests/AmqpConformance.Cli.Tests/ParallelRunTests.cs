using System.CommandLine;
using System.Text.Json;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>run --parallel N</c>: N shards of one seed in N child processes, merged, give the verdict a run in one
/// process gives with that seed: the same failing property, counterexample, shrink and replay token for a broken
/// writer, the same cases for a correct one; a shard whose process dies is named with its last lines. The parent runs
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
    public sealed class RefusesFrameMaxFactory : FrameWriterFactory
    {
        public override string Name => "RefusesFrameMax";

        public override IFrameWriter CreateWriter(WriterContext context) =>
            context.FrameMax % 5 != 3
                ? WriterModes.Inline.CreateWriter(context)
                : throw new NotSupportedException($"frame_max {context.FrameMax}: no writer for this one.");
    }

    private static string Writer =>
        $"{typeof(RefusesFrameMaxFactory).Assembly.Location}:{typeof(RefusesFrameMaxFactory).FullName}";

    private (int ExitCode, string Output, string Error, JsonElement Json) Run(string name, params string[] args)
    {
        string json = Path.Combine(_folder, name + ".json");
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(4)); // only against a hang
        var output = new StringWriter();
        var error = new StringWriter();
        var root = new RootCommand { RunCommand.Create() };
        int code = root.Parse(["run", .. args, "--json", json, "--report", Path.Combine(_folder, name)])
            .InvokeAsync(new InvocationConfiguration { Output = output, Error = error }, timeout.Token)
            .GetAwaiter()
            .GetResult();
        JsonElement results = File.Exists(json)
            ? JsonDocument.Parse(File.ReadAllText(json)).RootElement.Clone()
            : default;
        return (code, output.ToString(), error.ToString(), results);
    }

    private static JsonElement Property(JsonElement results, string property) =>
        results
            .GetProperty("writers")[0]
            .GetProperty("properties")
            .EnumerateArray()
            .Single(p => p.GetProperty("property").GetString() == property);

    [Fact]
    public void A_broken_writer_fails_in_parallel_with_the_counterexample_shrink_and_replay_of_one_process()
    {
        string[] run =
        [
            "--writer",
            Writer,
            "--cases",
            "8",
            "--invariant",
            "command-shape",
            "--invariant",
            "order",
            "--seed",
            Seed,
        ];
        var sequential = Run("sequential", run);
        var parallel = Run("parallel", [.. run, "--parallel", "3"]);

        Assert.True(sequential.ExitCode == 1, sequential.Output + sequential.Error);
        Assert.True(parallel.ExitCode == 1, parallel.Output + parallel.Error);
        var one = Property(sequential.Json, "command-shape");
        var merged = Property(parallel.Json, "command-shape");
        int cases = one.GetProperty("cases").GetInt32();
        Assert.True(cases > 1 && (cases - 1) % 3 != 0, $"seed {Seed} fails at case {cases - 1}: pick another");
        Assert.False(merged.GetProperty("holds").GetBoolean());
        foreach (string field in new[] { "cases", "counterexample", "shrinks", "replay", "replayCommand" })
            Assert.Equal(one.GetProperty(field).ToString(), merged.GetProperty(field).ToString());
        Assert.Equal($"{(cases - 1) % 3 + 1}/3", merged.GetProperty("shard").GetString());
        Assert.Contains($"VIOLATED after {cases} case(s)", parallel.Output, StringComparison.Ordinal);
        Assert.Contains(one.GetProperty("replayCommand").GetString()!, parallel.Output, StringComparison.Ordinal);
        // The later property fails at the same case with the same replay token; one process reports it unshrunk (it
        // shrinks a writer's failure once), and the merged output says so.
        foreach (string field in new[] { "holds", "cases", "replay", "replayCommand" })
            Assert.Equal(
                Property(sequential.Json, "order").GetProperty(field).ToString(),
                Property(parallel.Json, "order").GetProperty(field).ToString()
            );
        Assert.Contains("one process reports this failure unshrunk", parallel.Output, StringComparison.Ordinal);
        // Each shard's results (and artifacts: --report <reports>/parallel-shards/K) stay in files of its own.
        for (int k = 1; k <= 3; k++)
            Assert.True(File.Exists(Path.Combine(_folder, "parallel", ParallelRun.ShardsFolder, $"shard-{k}.json")));
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
