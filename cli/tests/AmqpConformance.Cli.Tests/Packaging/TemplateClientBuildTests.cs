using System.Xml.Linq;
using AmqpConformance.Suites;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// A client maintainer's route for a RabbitMQ.Client built from source (docs/known-client-defects.md, "Testing a
/// RabbitMQ.Client build"): a project made by <c>dotnet new amqp-conformance</c>, given
/// <c>-p:RabbitMqClientAssembly=</c> the path of a RabbitMQ.Client.dll, builds against that dll (with the client's own
/// dependencies as packages) instead of the package and runs its client suite on it; a path that is not a file fails
/// the build with a message that says so. The "locally built" client is the package's own dll copied out of the
/// packages folder, so the test needs no network and no clone.
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed class TemplateClientBuildTests(PackedFeed feed, ITestOutputHelper output)
{
    [PackagingFact]
    public async Task A_template_project_runs_its_client_suite_on_the_RabbitMQ_Client_dll_that_RabbitMqClientAssembly_names()
    {
        (string work, string project, Dictionary<string, string?> environment) = await TemplateProjects.CreateAsync(
            feed,
            "template-client-build",
            "Acme.ClientBuild"
        );

        // The package's restore puts RabbitMQ.Client in this feed's packages folder; its dll, copied elsewhere, stands
        // in for a build of the client's repository.
        ProcessResult restore = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["restore", "-nodeReuse:false"],
            project,
            TimeSpan.FromMinutes(5),
            environment
        );
        Assert.True(restore.ExitCode == 0, $"dotnet restore failed ({restore.ExitCode}):\n{restore.Output}");
        XDocument projectFile = XDocument.Load(Path.Combine(project, "Acme.ClientBuild.csproj"));
        string version = (string)
            projectFile
                .Descendants("PackageReference")
                .Single(r => (string?)r.Attribute("Include") == "RabbitMQ.Client")
                .Attribute("Version")!;
        string package = Path.Combine(feed.GlobalPackagesFolder, "rabbitmq.client", version);
        string clientBuild = Directory.CreateDirectory(Path.Combine(work, "client-build")).FullName;
        string dll = Path.Combine(clientBuild, "RabbitMQ.Client.dll");
        File.Copy(Path.Combine(package, "lib", "net8.0", "RabbitMQ.Client.dll"), dll);

        // The dependencies the project adds for a dll are the ones the client's package lists for net8.0.
        XElement nuspec = XDocument.Load(Path.Combine(package, "rabbitmq.client.nuspec")).Root!;
        foreach (XElement element in nuspec.DescendantsAndSelf())
            element.Name = element.Name.LocalName;
        string[] listed =
        [
            .. nuspec
                .Descendants("group")
                .Single(g => (string?)g.Attribute("targetFramework") == "net8.0")
                .Elements("dependency")
                .Select(d => $"{d.Attribute("id")!.Value} {d.Attribute("version")!.Value}")
                .Order(StringComparer.Ordinal),
        ];
        Assert.NotEmpty(listed);
        Assert.Equal(
            listed,
            DllDependencies(projectFile)
                .Select(r => $"{r.Attribute("Include")!.Value} {r.Attribute("Version")!.Value}")
                .Order(StringComparer.Ordinal)
        );

        ProcessResult test = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            [
                "test",
                "-nodeReuse:false",
                "-p:RabbitMqClientAssembly=" + dll,
                "--filter",
                "Client=RabbitMQ.Client",
                "--logger",
                "trx;LogFileName=results.trx",
                "--logger",
                "console;verbosity=detailed",
                "--results-directory",
                Path.Combine(work, "results"),
            ],
            project,
            TimeSpan.FromMinutes(15),
            environment
        );
        output.WriteLine(test.Output);
        Assert.True(
            test.ExitCode == 0,
            $"dotnet test -p:RabbitMqClientAssembly=... of the new project failed ({test.ExitCode}):\n{test.Output}"
        );
        Assert.Contains(
            $"Acme.ClientBuild: RabbitMQ.Client from {dll}, not from its package",
            test.Output,
            StringComparison.Ordinal
        );
        // Built against the dll, not the package: the assets name the client's dependencies but not the client.
        string assets = File.ReadAllText(Path.Combine(project, "obj", "project.assets.json"));
        Assert.DoesNotContain("\"RabbitMQ.Client/", assets, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("\"System.Threading.RateLimiting/", assets, StringComparison.Ordinal);
        Assert.Equal(
            File.ReadAllBytes(dll),
            File.ReadAllBytes(Path.Combine(project, "bin", "Debug", "net8.0", "RabbitMQ.Client.dll"))
        );
        // The reports name the client's version and writer.
        Assert.Contains($"RabbitMQ.Client {version}+", test.Output, StringComparison.Ordinal);
        Assert.Contains("(background writer, no UseBackgroundFrameWriter)", test.Output, StringComparison.Ordinal);
        XElement[] results = XDocument
            .Load(Path.Combine(work, "results", "results.trx"))
            .Descendants()
            .Where(e => e.Name.LocalName == "UnitTestResult")
            .ToArray();
        Assert.Equal(
            TemplateTests
                .TestsOf(typeof(ClientConformanceSuite))
                .Select(p => "Acme.ClientBuild.RabbitMqClientConformance." + p)
                .Order(StringComparer.Ordinal),
            results.Select(r => (string)r.Attribute("testName")!).Order(StringComparer.Ordinal)
        );
        Assert.All(results, r =>
            Assert.True(
                (string?)r.Attribute("outcome") == "Passed",
                $"{r.Attribute("testName")}: {r.Attribute("outcome")}"
            )
        );

        // Asking for a frame writer the client has no setting for fails, and says why.
        environment[TemplateProjects.BackgroundWriterVariable] = "false";
        ProcessResult inline = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            [
                "test",
                "--no-build",
                "-p:RabbitMqClientAssembly=" + dll,
                "--filter",
                "FullyQualifiedName~RabbitMqClientConformance.WireFormat",
            ],
            project,
            TimeSpan.FromMinutes(5),
            environment
        );
        output.WriteLine(inline.Output);
        Assert.True(
            inline.ExitCode != 0,
            $"{TemplateProjects.BackgroundWriterVariable}=false passed on a client without it"
        );
        Assert.Contains(
            $"Asked to set ConnectionFactory.UseBackgroundFrameWriter=false ({TemplateProjects.BackgroundWriterVariable}), but RabbitMQ.Client {version}+",
            inline.Output,
            StringComparison.Ordinal
        );
    }

    [PackagingFact]
    public async Task A_RabbitMqClientAssembly_that_is_not_a_file_fails_the_build_and_says_so()
    {
        (_, string project, Dictionary<string, string?> environment) = await TemplateProjects.CreateAsync(
            feed,
            "template-client-build-missing",
            "Acme.MissingClient"
        );
        string relative = Path.Combine("..", "no-such-build", "RabbitMQ.Client.dll");
        ProcessResult build = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["build", "-nodeReuse:false", "-p:RabbitMqClientAssembly=" + relative],
            project,
            TimeSpan.FromMinutes(5),
            environment
        );
        output.WriteLine(build.Output);
        Assert.True(build.ExitCode != 0, $"a build against a missing RabbitMQ.Client.dll passed:\n{build.Output}");
        // A relative path is taken from the project's folder, and the message names the path it looked at.
        string resolved = Path.GetFullPath(Path.Combine(project, relative));
        Assert.Contains(
            $"error : RabbitMqClientAssembly names {resolved}, which is not a file.",
            build.Output,
            StringComparison.Ordinal
        );
        Assert.DoesNotContain("error CS", build.Output, StringComparison.Ordinal);
    }

    /// <summary>The package references the template's project file adds for a RabbitMQ.Client dll: those in the item
    /// group that applies when RabbitMqClientAssembly is set.</summary>
    internal static IEnumerable<XElement> DllDependencies(XDocument projectFile) =>
        projectFile
            .Descendants("ItemGroup")
            .Where(g => (string?)g.Attribute("Condition") == "'$(RabbitMqClientAssembly)' != ''")
            .Elements("PackageReference");
}
