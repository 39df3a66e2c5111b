using System.Reflection;
using System.Xml.Linq;
using AmqpConformance.Suites;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// The packed template the way a user meets it, in a fresh folder: <c>dotnet new install</c> the package, <c>dotnet new
/// amqp-conformance</c>, <c>dotnet test</c>; both the writer suite (placeholder writer) and the RabbitMQ.Client client suite
/// (adapter as source) pass out of the box.
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed class TemplateTests(PackedFeed feed, ITestOutputHelper output)
{
    [PackagingFact]
    public async Task A_project_made_by_dotnet_new_amqp_conformance_passes_its_writer_and_client_suites()
    {
        await feed.EnsurePackedAsync();
        string work = Directory.CreateDirectory(Path.Combine(feed.Root, "template-user")).FullName;
        // Installed templates are kept in a hive of this test's own, never in the user's.
        string hive = Path.Combine(work, "hive");
        feed.WriteNugetConfig(work);
        Dictionary<string, string?> environment = PackedFeed.ClientEnvironment();
        // Few cases: this proves the project works, not the writer (the suites' own tests do that).
        environment["AMQP_CONFORMANCE_CASES"] = "3";

        ProcessResult install = await ProcessRun.RunAsync(ProcessRun.DotnetHost,
            ["new", "install", feed.PackagePath("AmqpConformance.Templates"), "--debug:custom-hive", hive], work, TimeSpan.FromMinutes(5), environment);
        output.WriteLine(install.Output);
        Assert.True(install.ExitCode == 0, $"dotnet new install failed ({install.ExitCode}):\n{install.Output}");

        ProcessResult create = await ProcessRun.RunAsync(ProcessRun.DotnetHost,
            ["new", "amqp-conformance", "-n", "Acme.Client.ConformanceTests", "--debug:custom-hive", hive], work, TimeSpan.FromMinutes(5), environment);
        output.WriteLine(create.Output);
        Assert.True(create.ExitCode == 0, $"dotnet new amqp-conformance failed ({create.ExitCode}):\n{create.Output}");
        string project = Path.Combine(work, "Acme.Client.ConformanceTests");
        Assert.True(File.Exists(Path.Combine(project, "Acme.Client.ConformanceTests.csproj")), $"no project file in {project}");
        Assert.Contains("namespace Acme.Client.ConformanceTests;", File.ReadAllText(Path.Combine(project, "RabbitMqClientAdapter.cs")), StringComparison.Ordinal);

        await feed.ClearGlobalPackagesAsync(project);
        ProcessResult test = await ProcessRun.RunAsync(ProcessRun.DotnetHost,
            ["test", "-nodeReuse:false", "--logger", "trx;LogFileName=results.trx", "--results-directory", Path.Combine(work, "results")],
            project, TimeSpan.FromMinutes(15), environment);
        output.WriteLine(test.Output);
        Assert.True(test.ExitCode == 0, $"dotnet test of the new project failed ({test.ExitCode}):\n{test.Output}");

        XElement[] results = XDocument.Load(Path.Combine(work, "results", "results.trx")).Descendants()
            .Where(e => e.Name.LocalName == "UnitTestResult").ToArray();
        Assert.All(results, r => Assert.True((string?)r.Attribute("outcome") == "Passed", $"{r.Attribute("testName")}: {r.Attribute("outcome")}"));
        string[] names = [.. results.Select(r => (string)r.Attribute("testName")!)];
        Assert.Equal(TestsOf(typeof(FrameWriterConformanceSuite)).Select(p => "Acme.Client.ConformanceTests.MyWriterConformance." + p)
                .Concat(TestsOf(typeof(ClientConformanceSuite)).Select(p => "Acme.Client.ConformanceTests.RabbitMqClientConformance." + p))
                .Order(StringComparer.Ordinal),
            names.Order(StringComparer.Ordinal));
    }

    /// <summary>The names of a suite's tests: its conformance properties and any other fact it has.</summary>
    internal static string[] TestsOf(Type suite) =>
        [.. suite.GetMethods(BindingFlags.Public | BindingFlags.Instance)
            .Where(m => m.GetCustomAttribute<FactAttribute>() is not null).Select(m => m.Name)];

    [Fact]
    public void The_template_asks_for_the_versions_this_repository_builds_and_packs()
    {
        string repo = RepositoryRoot.Find();
        Dictionary<string, string> repoVersions = SampleRepositoryTests.PackageVersions(Path.Combine(repo, "Directory.Packages.props"));
        string version = XDocument.Load(Path.Combine(repo, "Directory.Build.props")).Descendants("Version").Single().Value;
        XDocument template = XDocument.Load(Path.Combine(repo, "templates", "src", "AmqpConformance.Templates", "content", "amqp-conformance",
            "AmqpConformanceTests.csproj"));
        foreach (XElement reference in template.Descendants("PackageReference"))
        {
            string id = (string)reference.Attribute("Include")!;
            Assert.Equal(id.StartsWith("AmqpConformance.", StringComparison.Ordinal) ? version : repoVersions[id], (string?)reference.Attribute("Version"));
        }
    }
}
