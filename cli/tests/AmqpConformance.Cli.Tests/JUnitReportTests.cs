using System.CommandLine;
using System.Text.Json;
using System.Xml.Linq;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>run --junit FILE</c> and <c>merge --junit FILE</c>: a test suite per writer and a test case per
/// property, with totals that match the JSON results of the same run; a failure's text carries the replay line the JSON
/// holds; a merge's file is the merged verdict; an interrupted run's file says so; the file is written whole, and holds
/// only characters XML can.</summary>
[Trait("Area", "Run")]
public sealed class JUnitReportTests : IDisposable
{
    private readonly ScratchFolder _scratch = new("amqpc-junit-");

    private string _folder => _scratch.Path;

    public void Dispose() => _scratch.Dispose();

    /// <summary><see cref="RunCommandTests.DropsBodiesFactory"/> as a writer of its own, so its shrunk failure (which
    /// the harness remembers process-wide by factory type and name) changes no other class's reports.</summary>
    public sealed class JUnitDropsBodiesFactory : RunCommandTests.DropsBodiesFactory
    {
        public override string Name => "JUnitDropsBodies";
    }

    private static string DropsBodies =>
        $"{typeof(JUnitDropsBodiesFactory).Assembly.Location}:{typeof(JUnitDropsBodiesFactory).FullName}";

    private static (int ExitCode, string Output, string Error) Invoke(Command command, params string[] args) =>
        InProcessCli.Invoke(command, TimeSpan.FromMinutes(3), args);

    /// <summary>Runs order and lifecycle over <paramref name="writers"/> with seed 7, writing JSON and JUnit; returns
    /// the two files.</summary>
    private (string Json, string JUnit) Run(string name, int expectedExit, string? shard, params string[] writers)
    {
        string json = Path.Combine(_folder, name + ".json");
        // A folder that does not exist yet: the write makes it.
        string junit = Path.Combine(_folder, "junit", name, "results.xml");
        string[] sharding = shard is null ? [] : ["--shard", shard];
        var (code, output, error) = Invoke(
            RunCommand.Create(),
            [
                .. writers.SelectMany(w => new[] { "--writer", w }),
                "--cases",
                "10",
                "--invariant",
                "order",
                "--invariant",
                "lifecycle",
                "--seed",
                "7",
                .. sharding,
                "--json",
                json,
                "--junit",
                junit,
                "--report",
                Path.Combine(_folder, "reports", name),
            ]
        );
        Assert.True(code == expectedExit, $"exit {code}\n{output}\n{error}");
        return (json, junit);
    }

    private static int Count(XElement element, string attribute) => (int)element.Attribute(attribute)!;

    private static string? PropertyOf(XElement suite, string name) =>
        suite.Element("properties")?.Elements("property").SingleOrDefault(p => (string?)p.Attribute("name") == name)
            is { } property
            ? (string?)property.Attribute("value")
            : null;

    private static XElement TestCase(XDocument junit, string writer, string property) =>
        junit
            .Root!.Elements("testsuite")
            .Single(s => (string?)s.Attribute("name") == writer)
            .Elements("testcase")
            .Single(c => (string?)c.Attribute("name") == property);

    /// <summary>Each writer's properties in the JSON: (writer, property, holds, replayCommand).</summary>
    private static List<(string Writer, string Property, bool Holds, string? Replay)> JsonProperties(string json)
    {
        using var document = JsonDocument.Parse(File.ReadAllText(json));
        return
        [
            .. document
                .RootElement.GetProperty("writers")
                .EnumerateArray()
                .SelectMany(w =>
                    w.GetProperty("properties")
                        .EnumerateArray()
                        .Select(p =>
                            (
                                w.GetProperty("name").GetString()!,
                                p.GetProperty("property").GetString()!,
                                p.GetProperty("holds").GetBoolean(),
                                p.TryGetProperty("replayCommand", out var r) ? r.GetString() : null
                            )
                        )
                ),
        ];
    }

    [Fact]
    public void A_passing_runs_junit_has_every_writer_and_property_as_a_test_case_and_no_failure()
    {
        var (json, junitPath) = Run("pass", 0, null, "inline", "background");
        var junit = XDocument.Load(junitPath);
        var expected = JsonProperties(json);

        var root = junit.Root!;
        Assert.Equal("testsuites", root.Name.LocalName);
        Assert.Equal("amqp-conformance", (string?)root.Attribute("name"));
        Assert.Equal(4, expected.Count);
        Assert.Equal(expected.Count, Count(root, "tests"));
        Assert.Equal(0, Count(root, "failures"));
        Assert.Equal(0, Count(root, "skipped"));
        var suites = root.Elements("testsuite").ToList();
        Assert.Equal(["Inline", "Background"], suites.Select(s => (string?)s.Attribute("name")));
        foreach (var suite in suites)
        {
            string writer = (string)suite.Attribute("name")!;
            var cases = suite.Elements("testcase").ToList();
            Assert.Equal(
                expected.Where(p => p.Writer == writer).Select(p => p.Property),
                cases.Select(c => (string?)c.Attribute("name"))
            );
            Assert.Equal(cases.Count, Count(suite, "tests"));
            Assert.Equal(0, Count(suite, "failures"));
            Assert.All(cases, c => Assert.Equal($"amqp-conformance.{writer}", (string?)c.Attribute("classname")));
            Assert.All(cases, c => Assert.Empty(c.Elements()));
            Assert.Equal("7", PropertyOf(suite, "seed"));
            Assert.Equal("false", PropertyOf(suite, "interrupted"));
            Assert.Null(PropertyOf(suite, "shard"));
        }
        Assert.False(File.Exists(junitPath + ".tmp"), "the temporary file was left behind");
    }

    [Fact]
    public void A_failing_runs_junit_failure_carries_the_replay_line_the_json_holds()
    {
        var (json, junitPath) = Run("fail", 1, null, "Zoo:SmallFirst", "inline");
        var junit = XDocument.Load(junitPath);
        var properties = JsonProperties(json);

        Assert.Equal(properties.Count(p => !p.Holds), Count(junit.Root!, "failures"));
        Assert.Equal(properties.Count, Count(junit.Root!, "tests"));
        var failed = properties.First(p => !p.Holds);
        Assert.Equal("Zoo:SmallFirst", failed.Writer);
        Assert.NotNull(failed.Replay);
        var failure = Assert.Single(TestCase(junit, failed.Writer, failed.Property).Elements("failure"));
        string message = (string)failure.Attribute("message")!;
        Assert.StartsWith("VIOLATED after ", message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', message);
        Assert.Contains(failed.Replay!, failure.Value, StringComparison.Ordinal);
        Assert.Contains("Counterexample:", failure.Value, StringComparison.Ordinal);
        foreach (var held in properties.Where(p => p.Holds))
            Assert.Empty(TestCase(junit, held.Writer, held.Property).Elements());
    }

    [Fact]
    public void Merge_writes_the_merged_verdict_with_the_merged_failures_replay_line()
    {
        string[] shards =
        [
            Run("s1", 1, "1/2", "inline", DropsBodies).Json,
            Run("s2", 1, "2/2", "inline", DropsBodies).Json,
        ];
        string json = Path.Combine(_folder, "merged.json");
        string junitPath = Path.Combine(_folder, "merged", "junit.xml");

        var (code, output, error) = Invoke(MergeCommand.Create(), [.. shards, "--json", json, "--junit", junitPath]);
        Assert.True(code == 1, $"exit {code}\n{output}\n{error}");
        var junit = XDocument.Load(junitPath);
        var merged = JsonProperties(json);

        Assert.Equal(4, merged.Count);
        Assert.Equal(merged.Count, Count(junit.Root!, "tests"));
        Assert.Equal(merged.Count(p => !p.Holds), Count(junit.Root!, "failures"));
        Assert.Equal(
            ["Inline", "JUnitDropsBodies"],
            junit.Root!.Elements("testsuite").Select(s => (string?)s.Attribute("name"))
        );
        foreach (var suite in junit.Root!.Elements("testsuite"))
        {
            Assert.Equal("2", PropertyOf(suite, "shards"));
            Assert.Equal("7", PropertyOf(suite, "seed"));
        }
        foreach (var (writer, property, holds, replay) in merged)
        {
            var failures = TestCase(junit, writer, property).Elements("failure").ToList();
            if (holds)
            {
                Assert.Empty(failures);
                continue;
            }
            Assert.Equal("JUnitDropsBodies", writer);
            var failure = Assert.Single(failures);
            Assert.Contains(replay!, failure.Value, StringComparison.Ordinal);
            Assert.Contains($"replay: {replay}", output, StringComparison.Ordinal); // as the console prints it
            Assert.Contains("shard ", failure.Value, StringComparison.Ordinal);
        }
        Assert.Contains(merged, p => !p.Holds);
    }

    [Fact]
    public async Task An_interrupted_run_writes_what_it_has_and_says_it_was_interrupted()
    {
        string junitPath = Path.Combine(_folder, "interrupted.xml");
        using var stopped = new CancellationTokenSource();
        await stopped.CancelAsync();
        int code = await RunCommand.RunAsync(
            ["inline"],
            5,
            ["order", "lifecycle"],
            replay: null,
            reportRoot: Path.Combine(_folder, "reports"),
            jsonPath: null,
            output: new StringWriter(),
            error: new StringWriter(),
            cancellationToken: stopped.Token,
            junitPath: junitPath
        );
        Assert.Equal(ExitCodes.Interrupted, code);
        var suite = Assert.Single(XDocument.Load(junitPath).Root!.Elements("testsuite"));
        Assert.Equal("true", PropertyOf(suite, "interrupted"));
        Assert.Equal(2, Count(suite, "skipped"));
        Assert.All(suite.Elements("testcase"), c =>
            Assert.Equal("interrupted", (string?)c.Element("skipped")?.Attribute("message"))
        );
    }

    [Fact]
    public void A_write_that_fails_part_way_leaves_the_old_file_and_no_temporary_one()
    {
        Directory.CreateDirectory(_folder);
        string path = Path.Combine(_folder, "results.xml");
        File.WriteAllText(path, "the old results");
        Assert.Throws<IOException>(() => ResultsFile.WriteWhole(path, stream =>
            {
                stream.Write("<testsuites"u8);
                throw new IOException("disk full");
            }));
        Assert.Equal("the old results", File.ReadAllText(path));
        Assert.False(File.Exists(path + ".tmp"));
    }

    [Fact]
    public void Characters_xml_cannot_hold_are_escaped_so_the_file_still_parses()
    {
        string path = Path.Combine(_folder, "odd.xml");
        var verdict = new PropertyVerdict("W", "order")
        {
            Finding = "after 1 case(s): order",
            Report = "a message quoting \u0001 and \uFFFF; replay: amqp-conformance run --replay 1,2,3",
        };
        new JUnitReport([verdict]).Write(path);
        var failure = XDocument.Load(path).Descendants("failure").Single();
        Assert.Contains("\\u0001 and \\uFFFF", failure.Value, StringComparison.Ordinal);
        Assert.Contains("--replay 1,2,3", failure.Value, StringComparison.Ordinal);
    }
}
