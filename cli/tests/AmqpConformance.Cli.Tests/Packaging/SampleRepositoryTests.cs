using System.Reflection;
using System.Text.Json;
using System.Xml.Linq;
using AmqpConformance.Suites;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// <c>samples/MyAmqpClient</c>, a client repository shaped like the RabbitMQ .NET client's test projects (net8.0,
/// warnings as errors, strong-named, central package management), built from freshly packed packages only
/// (<see cref="SampleRepository"/>) and run with <c>dotnet test</c> the way its README says.
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed class SampleRepositoryTests(PackedFeed feed, ITestOutputHelper output)
{
    private static readonly string[] LibraryIds =
    [
        "AmqpConformance.Protocol",
        "AmqpConformance.Harness",
        "AmqpConformance.FakeBroker",
        "AmqpConformance.Toxiproxy",
        "AmqpConformance.Properties",
        "AmqpConformance.Suites",
    ];

    [PackagingFact]
    public async Task The_sample_restores_from_the_fresh_packages_and_its_writer_passes_every_property()
    {
        SampleRepository sample = await SampleRepository.GetAsync(feed);
        string results = Path.Combine(sample.Root, "results");
        ProcessResult test = await sample.DotnetAsync(
            "test",
            SampleRepository.TestProject,
            "--no-build",
            "--filter",
            "WriterMode=Mine",
            "--logger",
            "console;verbosity=normal",
            "--logger",
            "trx;LogFileName=mine.trx",
            "--results-directory",
            results
        );
        output.WriteLine(test.Output);
        Assert.True(
            test.ExitCode == 0,
            $"dotnet test --filter WriterMode=Mine failed ({test.ExitCode}):\n{test.Output}"
        );

        feed.AssertRestoredFromFeed(sample.GlobalPackages, LibraryIds);

        // Every property of the suite ran on the sample's writer and passed; the Duplicating suite beside it was
        // filtered out.
        string[] properties =
        [
            .. TemplateTests.TestsOf(typeof(FrameWriterConformanceSuite)).Order(StringComparer.Ordinal),
        ];
        Assert.NotEmpty(properties);
        XElement[] ran = TemplateTests.RanResults(Path.Combine(results, "mine.trx"));
        Assert.All(ran, r =>
            Assert.True(
                (string?)r.Attribute("outcome") == "Passed",
                $"{r.Attribute("testName")}: {r.Attribute("outcome")}"
            )
        );
        Assert.Equal(
            properties.Select(p => "MyAmqpClient.Tests.CommandWriterConformance." + p),
            ran.Select(r => (string)r.Attribute("testName")!).Order(StringComparer.Ordinal)
        );

        // The sample is strong-named, as the RabbitMQ client's test projects are: it could only build against signed
        // packages.
        string assembly = Path.Combine(
            sample.Root,
            SampleRepository.TestProject,
            "bin",
            "Debug",
            "net8.0",
            "MyAmqpClient.Tests.dll"
        );
        Assert.NotEmpty(AssemblyName.GetAssemblyName(assembly).GetPublicKeyToken() ?? []);
    }

    [PackagingFact]
    public async Task A_filter_that_selects_no_test_fails_the_run()
    {
        SampleRepository sample = await SampleRepository.GetAsync(feed);
        ProcessResult test = await sample.DotnetAsync(
            "test",
            SampleRepository.TestProject,
            "--no-build",
            "--filter",
            "WriterMode=Mien"
        );
        output.WriteLine(test.Output);
        Assert.Contains("No test matches the given testcase filter", test.Output, StringComparison.Ordinal);
        Assert.True(test.ExitCode != 0, $"a gate whose filter selects nothing passed:\n{test.Output}");
    }

    [PackagingFact]
    public async Task A_failure_report_lands_under_TestResults_of_the_working_directory_and_stale_reports_of_the_suite_go()
    {
        SampleRepository sample = await SampleRepository.GetAsync(feed);
        string reports = Path.Combine(sample.Root, "TestResults", "amqp-conformance");
        string stale = Path.Combine(reports, "DuplicatingWriterConformance", "cancellation", "summary.txt");
        string otherSuite = Path.Combine(reports, "SomeOtherSuite", "order", "summary.txt");
        foreach (string file in new[] { stale, otherSuite })
        {
            Directory.CreateDirectory(Path.GetDirectoryName(file)!);
            File.WriteAllText(file, "from an earlier run");
        }

        ProcessResult test = await sample.DotnetAsync(
            "test",
            SampleRepository.TestProject,
            "--no-build",
            "--filter",
            "WriterMode=Duplicating&FullyQualifiedName~Order"
        );
        output.WriteLine(test.Output);
        Assert.True(test.ExitCode != 0, $"the duplicating writer passed the order property:\n{test.Output}");

        string summary = Path.Combine(reports, "DuplicatingWriterConformance", "order", "summary.txt");
        Assert.True(File.Exists(summary), $"no report at {summary}:\n{test.Output}");
        // The sample's writer sends every command twice: a case with a heartbeat call shows it as a duplicate
        // heartbeat, one without as a duplicate publish; which one the order property finds first depends on the seed.
        Assert.Matches("order/duplicate-(publish|heartbeat)", File.ReadAllText(summary));
        Assert.Contains("Artifacts: " + Path.GetDirectoryName(summary), test.Output, StringComparison.Ordinal);
        Assert.False(File.Exists(stale), "the suite's report from an earlier run is still there");
        Assert.True(File.Exists(otherSuite), "another suite's reports were cleared");
    }

    [PackagingFact]
    public async Task The_client_test_project_gets_no_AspNetCore()
    {
        SampleRepository sample = await SampleRepository.GetAsync(feed);
        ProcessResult list = await sample.DotnetAsync(
            "list",
            SampleRepository.TestProject,
            "package",
            "--include-transitive"
        );
        output.WriteLine(list.Output);
        Assert.True(list.ExitCode == 0, list.Output);
        Assert.Contains("AmqpConformance.Suites", list.Output, StringComparison.Ordinal);
        Assert.Contains("AmqpConformance.Toxiproxy ", list.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("AspNetCore", list.Output, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("AmqpConformance.Toxiproxy.Server", list.Output, StringComparison.Ordinal);

        // Shared frameworks are not packages, so the list cannot show one: the restore's assets file names the
        // project's own framework references and, per package, the ones each package brings.
        using JsonDocument assets = JsonDocument.Parse(
            File.ReadAllText(Path.Combine(sample.Root, SampleRepository.TestProject, "obj", "project.assets.json"))
        );
        string[] own = assets
            .RootElement.GetProperty("project")
            .GetProperty("frameworks")
            .EnumerateObject()
            .SelectMany(f =>
                f.Value.TryGetProperty("frameworkReferences", out JsonElement refs)
                    ? refs.EnumerateObject().Select(r => r.Name)
                    : []
            )
            .ToArray();
        Assert.Equal(["Microsoft.NETCore.App"], own);
        string[] brought = assets
            .RootElement.GetProperty("targets")
            .EnumerateObject()
            .SelectMany(t => t.Value.EnumerateObject())
            .SelectMany(l =>
                l.Value.TryGetProperty("frameworkReferences", out JsonElement refs)
                    ? refs.EnumerateArray().Select(r => $"{l.Name}: {r.GetString()}")
                    : []
            )
            .ToArray();
        Assert.Empty(brought);
    }

    [Fact]
    public void The_sample_asks_for_the_versions_this_repository_builds_and_packs()
    {
        string repo = RepositoryRoot.Find();
        Dictionary<string, string> repoVersions = PackageVersions(Path.Combine(repo, "Directory.Packages.props"));
        // AmqpConformance.* float to the newest the feed holds, whatever version this commit packs (versions come from
        // git).
        const string version = "*-*";
        foreach (
            (string id, string wanted) in PackageVersions(
                Path.Combine(repo, "samples", "MyAmqpClient", "Directory.Packages.props")
            )
        )
            Assert.Equal(
                id.StartsWith("AmqpConformance.", StringComparison.Ordinal) ? version : repoVersions[id],
                wanted
            );
    }

    internal static Dictionary<string, string> PackageVersions(string propsFile) =>
        XDocument
            .Load(propsFile)
            .Descendants("PackageVersion")
            .ToDictionary(p => (string)p.Attribute("Include")!, p => (string)p.Attribute("Version")!);
}
