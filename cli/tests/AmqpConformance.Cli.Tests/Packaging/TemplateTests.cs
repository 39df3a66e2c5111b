using System.Reflection;
using System.Xml.Linq;
using AmqpConformance.Suites;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// The packed template the way a user meets it, in a fresh folder: <c>dotnet new install</c> the package, <c>dotnet new
/// amqp-conformance</c>, <c>dotnet test</c>; both the writer suite (placeholder writer) and the RabbitMQ.Client client
/// suite (adapter as source) pass out of the box.
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
        await feed.WriteNugetConfigAsync(work);
        Dictionary<string, string?> environment = feed.ClientEnvironment();
        // Few cases: this proves the project works, not the writer (the suites' own tests do that).
        environment["AMQP_CONFORMANCE_CASES"] = "3";

        ProcessResult install = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["new", "install", feed.PackagePath("AmqpConformance.Templates"), "--debug:custom-hive", hive],
            work,
            TimeSpan.FromMinutes(5),
            environment
        );
        output.WriteLine(install.Output);
        Assert.True(install.ExitCode == 0, $"dotnet new install failed ({install.ExitCode}):\n{install.Output}");

        ProcessResult create = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["new", "amqp-conformance", "-n", "Acme.Client.ConformanceTests", "--debug:custom-hive", hive],
            work,
            TimeSpan.FromMinutes(5),
            environment
        );
        output.WriteLine(create.Output);
        Assert.True(create.ExitCode == 0, $"dotnet new amqp-conformance failed ({create.ExitCode}):\n{create.Output}");
        string project = Path.Combine(work, "Acme.Client.ConformanceTests");
        Assert.True(
            File.Exists(Path.Combine(project, "Acme.Client.ConformanceTests.csproj")),
            $"no project file in {project}"
        );
        Assert.Contains(
            "namespace Acme.Client.ConformanceTests;",
            File.ReadAllText(Path.Combine(project, "RabbitMqClientAdapter.cs")),
            StringComparison.Ordinal
        );

        ProcessResult test = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            [
                "test",
                "-nodeReuse:false",
                "--logger",
                "trx;LogFileName=results.trx",
                "--results-directory",
                Path.Combine(work, "results"),
            ],
            project,
            TimeSpan.FromMinutes(15),
            environment
        );
        output.WriteLine(test.Output);
        Assert.True(test.ExitCode == 0, $"dotnet test of the new project failed ({test.ExitCode}):\n{test.Output}");
        // The project asks for exactly the version the template was packed with, and got it from this run's feed.
        feed.AssertRestoredFromFeed(feed.GlobalPackagesFolder, ["AmqpConformance.Suites"]);

        XElement[] results = RanResults(Path.Combine(work, "results", "results.trx"));
        Assert.All(results, r =>
            Assert.True(
                (string?)r.Attribute("outcome") == "Passed",
                $"{r.Attribute("testName")}: {r.Attribute("outcome")}"
            )
        );
        string[] names = [.. results.Select(r => (string)r.Attribute("testName")!)];
        Assert.Equal(
            TestsOf(typeof(FrameWriterConformanceSuite))
                .Select(p => "Acme.Client.ConformanceTests.MyWriterConformance." + p)
                .Concat(
                    TestsOf(typeof(ClientConformanceSuite))
                        .Select(p => "Acme.Client.ConformanceTests.RabbitMqClientConformance." + p)
                )
                .Order(StringComparer.Ordinal),
            names.Order(StringComparer.Ordinal)
        );
    }

    /// <summary><c>dotnet new amqp-conformance --xunit 3</c>: an xunit v3 project on AmqpConformance.Suites.XunitV3
    /// that gates on its writer mode under VSTest (<c>dotnet test --filter WriterMode=Mine</c>) or, with <c>--runner
    /// mtp</c>, under Microsoft.Testing.Platform (<c>dotnet test --filter-trait WriterMode=Mine</c>, through the
    /// global.json the template puts beside it): the writer suite's twelve properties pass, the whole project (the
    /// client suite too) passes, and a filter that selects nothing fails the run.</summary>
    [PackagingTheory]
    [InlineData("vstest")]
    [InlineData("mtp")]
    public async Task A_project_made_with_xunit_3_gates_on_its_writer_mode(string runner)
    {
        await feed.EnsurePackedAsync();
        string work = Directory.CreateDirectory(Path.Combine(feed.Root, "template-v3-" + runner)).FullName;
        string hive = Path.Combine(work, "hive");
        await feed.WriteNugetConfigAsync(work);
        Dictionary<string, string?> environment = feed.ClientEnvironment();
        environment["AMQP_CONFORMANCE_CASES"] = "3";
        // No MSBuild node outlives the test (-nodeReuse:false elsewhere; under Microsoft.Testing.Platform dotnet test
        // hands unknown options to the test application, which refuses them).
        environment["MSBUILDDISABLENODEREUSE"] = "1";
        ProcessResult install = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["new", "install", feed.PackagePath("AmqpConformance.Templates"), "--debug:custom-hive", hive],
            work,
            TimeSpan.FromMinutes(5),
            environment
        );
        Assert.True(install.ExitCode == 0, $"dotnet new install failed ({install.ExitCode}):\n{install.Output}");
        ProcessResult create = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            [
                "new",
                "amqp-conformance",
                "-n",
                "Acme.V3",
                "--xunit",
                "3",
                "--runner",
                runner,
                "--debug:custom-hive",
                hive,
            ],
            work,
            TimeSpan.FromMinutes(5),
            environment
        );
        Assert.True(
            create.ExitCode == 0,
            $"dotnet new amqp-conformance --xunit 3 failed ({create.ExitCode}):\n{create.Output}"
        );
        string project = Path.Combine(work, "Acme.V3");
        Assert.Equal(runner == "mtp", File.Exists(Path.Combine(project, "global.json")));
        Assert.DoesNotContain(
            "Xunit.Abstractions",
            File.ReadAllText(Path.Combine(project, "WriterConformance.cs")),
            StringComparison.Ordinal
        );

        bool mtp = runner == "mtp";
        string[] Select(string mode) =>
            mtp ? ["--filter-trait", "WriterMode=" + mode] : ["--filter", "WriterMode=" + mode];
        ProcessResult mine = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["test", .. Select("Mine")],
            project,
            TimeSpan.FromMinutes(15),
            environment
        );
        output.WriteLine(mine.Output);
        Assert.True(
            mine.ExitCode == 0,
            $"dotnet test {string.Join(' ', Select("Mine"))} failed ({mine.ExitCode}):\n{mine.Output}"
        );
        int properties = TestsOf(typeof(FrameWriterConformanceSuite)).Length;
        Assert.Contains(
            mtp ? $"succeeded: {properties}" : $"Passed:    {properties},",
            mine.Output,
            StringComparison.Ordinal
        );
        feed.AssertRestoredFromFeed(feed.GlobalPackagesFolder, ["AmqpConformance.Suites.XunitV3"]);

        ProcessResult nothing = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["test", "--no-build", .. Select("Nope")],
            project,
            TimeSpan.FromMinutes(5),
            environment
        );
        output.WriteLine(nothing.Output);
        Assert.True(nothing.ExitCode != 0, $"a filter that selects no test passed the run:\n{nothing.Output}");

        ProcessResult all = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["test", "--no-build"],
            project,
            TimeSpan.FromMinutes(15),
            environment
        );
        output.WriteLine(all.Output);
        Assert.True(
            all.ExitCode == 0,
            $"dotnet test of the whole xunit v3 project failed ({all.ExitCode}):\n{all.Output}"
        );
        int total = properties + TestsOf(typeof(ClientConformanceSuite)).Length;
        Assert.Contains(mtp ? $"succeeded: {total}" : $"Passed:    {total},", all.Output, StringComparison.Ordinal);
    }

    /// <summary>The test results in the TRX file at <paramref name="trx"/>, less the suites' soak tests when they were
    /// skipped, as they are unless AMQP_CONFORMANCE_SOAK is set (<see cref="TestsOf"/> leaves them out too).</summary>
    internal static XElement[] RanResults(string trx) =>
        [
            .. XDocument
                .Load(trx)
                .Descendants()
                .Where(e => e.Name.LocalName == "UnitTestResult")
                .Where(e =>
                    !(
                        (string?)e.Attribute("outcome") == "NotExecuted"
                        && ((string?)e.Attribute("testName"))?.EndsWith(".Soak", StringComparison.Ordinal) == true
                    )
                ),
        ];

    /// <summary>The names of a suite's tests that run (and so pass) here: its conformance properties and any other
    /// fact it has that is not skipped (the soak is, unless AMQP_CONFORMANCE_SOAK is set).</summary>
    internal static string[] TestsOf(Type suite) =>
        [
            .. suite
                .GetMethods(BindingFlags.Public | BindingFlags.Instance)
                .Where(m => m.GetCustomAttribute<FactAttribute>() is { Skip: null })
                .Select(m => m.Name),
        ];

    /// <summary>What the template's project file says in place of the AmqpConformance version; pack writes the packed
    /// version there (templates/src/AmqpConformance.Templates/AmqpConformance.Templates.csproj).</summary>
    internal const string VersionPlaceholder = "AMQPC_PACKAGE_VERSION";

    [Fact]
    public void The_template_asks_for_the_versions_this_repository_builds_and_packs()
    {
        string repo = RepositoryRoot.Find();
        Dictionary<string, string> repoVersions = SampleRepositoryTests.PackageVersions(
            Path.Combine(repo, "Directory.Packages.props")
        );
        // The AmqpConformance version is the one the template is packed with (VersionTests checks the packed file).
        const string version = VersionPlaceholder;
        XDocument template = XDocument.Load(
            Path.Combine(
                repo,
                "templates",
                "src",
                "AmqpConformance.Templates",
                "content",
                "amqp-conformance",
                "AmqpConformanceTests.csproj"
            )
        );
        // What the project adds for a RabbitMQ.Client dll of your own (RabbitMqClientAssembly) is the client's own
        // dependencies, at the versions its package lists: TemplateClientBuildTests checks them against its nuspec.
        XElement[] dllDependencies = [.. TemplateClientBuildTests.DllDependencies(template)];
        Assert.NotEmpty(dllDependencies);
        Assert.Equal(
            "'$(RabbitMqClientAssembly)' == ''",
            (string?)
                template
                    .Descendants("PackageReference")
                    .Single(r => (string?)r.Attribute("Include") == "RabbitMQ.Client")
                    .Parent!.Attribute("Condition")
        );
        foreach (XElement reference in template.Descendants("PackageReference").Except(dllDependencies))
        {
            string id = (string)reference.Attribute("Include")!;
            Assert.Equal(
                id.StartsWith("AmqpConformance.", StringComparison.Ordinal) ? version : repoVersions[id],
                (string?)reference.Attribute("Version")
            );
        }
    }
}
