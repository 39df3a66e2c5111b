using System.Reflection;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using AmqpConformance.Suites;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// A client repository's test project, made from the template in <c>Packaging/consumer/</c> (files end in <c>.txt</c> so
/// neither this project nor the solution compiles them): it references the packed AmqpConformance.Suites package only,
/// subclasses <see cref="FrameWriterConformanceSuite"/> with its own <c>FrameWriterFactory</c>, and runs
/// <c>dotnet test --filter WriterMode=Mine</c> - restore from the feed, build, and every conformance property passing.
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed partial class ConsumerProjectTests(PackedFeed feed, ITestOutputHelper output)
{
    private static readonly string[] LibraryIds =
        ["AmqpConformance.Harness", "AmqpConformance.FakeBroker", "AmqpConformance.Toxiproxy", "AmqpConformance.Properties", "AmqpConformance.Suites"];

    [PackagingFact]
    public async Task A_consumer_test_project_restores_the_packages_subclasses_the_suite_and_its_tests_pass()
    {
        await feed.EnsurePackedAsync();
        string consumer = CreateConsumer();
        string globalPackages = await feed.ClearGlobalPackagesAsync(consumer);

        ProcessResult test = await ProcessRun.RunAsync(ProcessRun.DotnetHost,
            ["test", "Consumer.csproj", "-nodeReuse:false", "--filter", "WriterMode=Mine", "--logger", "console;verbosity=normal",
             "--logger", "trx;LogFileName=results.trx", "--results-directory", Path.Combine(consumer, "results")],
            consumer, TimeSpan.FromMinutes(15),
            new Dictionary<string, string?>
            {
                ["AMQP_CONFORMANCE_CASES"] = null,
                ["AMQP_CONFORMANCE_REPLAY"] = null,
                ["AMQP_CONFORMANCE_REPORTS"] = Path.Combine(feed.Root, "consumer-reports"),
                ["AMQPC_ARTIFACTS"] = null,
            });
        output.WriteLine(test.Output);
        Assert.True(test.ExitCode == 0, $"dotnet test of the consumer failed ({test.ExitCode}):\n{test.Output}");

        // Restored from this run's feed, not from a stale copy in the global packages folder.
        foreach (string id in LibraryIds)
        {
            string metadata = Path.Combine(globalPackages, id.ToLowerInvariant(), feed.Version, ".nupkg.metadata");
            Assert.True(File.Exists(metadata), $"{id} {feed.Version} was not restored into {globalPackages}");
            using JsonDocument json = JsonDocument.Parse(File.ReadAllText(metadata));
            string source = json.RootElement.GetProperty("source").GetString()!;
            Assert.Equal(Path.TrimEndingDirectorySeparator(feed.FeedDirectory), Path.TrimEndingDirectorySeparator(source));
        }

        // Every property of the suite ran on the consumer's writer and passed; the other mode in the file was filtered out.
        string[] properties = typeof(FrameWriterConformanceSuite).GetMethods(BindingFlags.Public | BindingFlags.Instance)
            .Where(m => m.GetCustomAttribute<ConformancePropertyAttribute>() is not null).Select(m => m.Name).Order(StringComparer.Ordinal).ToArray();
        Assert.NotEmpty(properties);
        XElement[] results = XDocument.Load(Path.Combine(consumer, "results", "results.trx")).Descendants()
            .Where(e => e.Name.LocalName == "UnitTestResult").ToArray();
        Assert.All(results, r => Assert.True((string?)r.Attribute("outcome") == "Passed", $"{r.Attribute("testName")}: {r.Attribute("outcome")}"));
        Assert.Equal(
            properties.Select(p => "Consumer.Tests.MyWriterConformance." + p),
            results.Select(r => (string)r.Attribute("testName")!).Order(StringComparer.Ordinal));
    }

    /// <summary>Copies the template into a fresh folder, filling in the packed version and the repository's test-stack versions.</summary>
    private string CreateConsumer()
    {
        string template = Path.Combine(feed.RepoRoot, "cli", "tests", "AmqpConformance.Cli.Tests", "Packaging", "consumer");
        string consumer = Directory.CreateDirectory(Path.Combine(feed.Root, "consumer")).FullName;

        Dictionary<string, string> versions = XDocument.Load(Path.Combine(feed.RepoRoot, "Directory.Packages.props"))
            .Descendants("PackageVersion").ToDictionary(p => (string)p.Attribute("Include")!, p => (string)p.Attribute("Version")!);
        versions["AmqpConformance"] = feed.Version;
        string project = Placeholder().Replace(File.ReadAllText(Path.Combine(template, "Consumer.csproj.txt")),
            m => versions.TryGetValue(m.Groups[1].Value, out string? v) ? v : throw new InvalidOperationException($"no version for {m.Value}"));
        File.WriteAllText(Path.Combine(consumer, "Consumer.csproj"), project);
        File.Copy(Path.Combine(template, "WriterConformanceTests.cs.txt"), Path.Combine(consumer, "WriterConformanceTests.cs"));

        // Stop MSBuild's upward search: nothing from the temp folder's parents may shape the consumer's build.
        File.WriteAllText(Path.Combine(consumer, "Directory.Build.props"), "<Project />");
        File.WriteAllText(Path.Combine(consumer, "Directory.Build.targets"), "<Project />");
        feed.WriteNugetConfig(consumer);
        return consumer;
    }

    [GeneratedRegex(@"@([A-Za-z.]+)@")]
    private static partial Regex Placeholder();
}
