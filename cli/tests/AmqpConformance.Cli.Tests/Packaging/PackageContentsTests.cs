using System.IO.Compression;
using System.Xml.Linq;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// What <c>dotnet pack</c> makes of the shipped projects: ids, version, metadata, README, XML docs, symbols, and
/// dependencies on each other as packages (never project paths or test-only code).
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed class PackageContentsTests(PackedFeed feed, ITestOutputHelper output)
{
    /// <summary>Each library's expected dependencies (package ids) and framework references. Only the Toxiproxy HTTP
    /// server brings ASP.NET Core, so nothing a client test project references does.</summary>
    private static readonly Dictionary<string, (string[] Packages, string[] Frameworks)> Expected = new()
    {
        ["AmqpConformance.Protocol"] = (["System.IO.Hashing"], []),
        ["AmqpConformance.Harness"] = (["AmqpConformance.Protocol"], []),
        ["AmqpConformance.FakeBroker"] = (
            ["AmqpConformance.Protocol", "Microsoft.Extensions.Logging.Abstractions"],
            []
        ),
        ["AmqpConformance.Toxiproxy"] = (["AmqpConformance.Harness", "Microsoft.Extensions.Logging.Abstractions"], []),
        ["AmqpConformance.Toxiproxy.Server"] = (["AmqpConformance.Toxiproxy"], ["Microsoft.AspNetCore.App"]),
        ["AmqpConformance.Properties"] = (
            ["AmqpConformance.FakeBroker", "AmqpConformance.Toxiproxy", "FsCheck", "FSharp.Core"],
            []
        ),
        ["AmqpConformance.Suites"] = (["AmqpConformance.Properties", "xunit.extensibility.execution"], []),
    };

    /// <summary>The frameworks every library ships for: net8.0 for client repos on the .NET 8 SDK, net10.0 for the
    /// rest.</summary>
    private static readonly string[] LibraryFrameworks = ["net8.0", "net10.0"];

    /// <summary>Extra dependencies of the net8.0 build only (what the .NET 8 shared framework lacks).</summary>
    private static readonly Dictionary<string, string[]> Net8Extras = new()
    {
        ["AmqpConformance.Protocol"] = ["System.IO.Pipelines"],
        ["AmqpConformance.Harness"] = ["System.IO.Pipelines"],
        ["AmqpConformance.FakeBroker"] = ["System.IO.Pipelines"],
    };

    [PackagingFact]
    public async Task Every_library_package_has_metadata_readme_docs_symbols_and_package_dependencies()
    {
        await feed.EnsurePackedAsync();
        foreach ((string id, (string[] packages, string[] frameworks)) in Expected)
        {
            string nupkg = feed.PackagePath(id);
            output.WriteLine($"{Path.GetFileName(nupkg)}: {new FileInfo(nupkg).Length} bytes");
            XElement meta = PackedFeed.ReadNuspec(nupkg);
            AssertCommonMetadata(id, meta, feed.Version);

            using ZipArchive zip = ZipFile.OpenRead(nupkg);
            string[] entries = zip.Entries.Select(e => e.FullName).ToArray();
            AssertOwnReadme(id, zip);
            AssertNoTestOnlyContent(id, entries);
            if (id == "AmqpConformance.Suites")
            {
                Assert.Contains("buildTransitive/AmqpConformance.Suites.targets", entries);
                Assert.Contains("buildTransitive/AmqpConformance.Suites.Reports.targets", entries);
            }
            string snupkg = Path.ChangeExtension(nupkg, ".snupkg");
            Assert.True(File.Exists(snupkg), $"{id}: no symbol package {snupkg}");
            using ZipArchive symbols = ZipFile.OpenRead(snupkg);

            foreach (string tfm in LibraryFrameworks)
            {
                Assert.Contains($"lib/{tfm}/{id}.dll", entries);
                Assert.Contains($"lib/{tfm}/{id}.xml", entries);
                Assert.Contains($"lib/{tfm}/{id}.pdb", symbols.Entries.Select(e => e.FullName));

                var dependencies = meta.Element("dependencies")!
                    .Elements("group")
                    .Single(g => (string?)g.Attribute("targetFramework") == tfm)
                    .Elements("dependency")
                    .ToList();
                string[] expected = tfm == "net8.0" ? [.. packages, .. Net8Extras.GetValueOrDefault(id, [])] : packages;
                Assert.Equal(
                    expected.Order(StringComparer.Ordinal),
                    dependencies.Select(d => (string)d.Attribute("id")!).Order(StringComparer.Ordinal)
                );
                foreach (XElement dependency in dependencies)
                {
                    string version = (string)dependency.Attribute("version")!;
                    Assert.False(
                        string.IsNullOrEmpty(version),
                        $"{id} ({tfm}) depends on {dependency.Attribute("id")} without a version"
                    );
                    if (((string)dependency.Attribute("id")!).StartsWith("AmqpConformance.", StringComparison.Ordinal))
                        Assert.Equal(feed.Version, version);
                }
                string[] frameworkRefs = meta.Element("frameworkReferences")
                    ?.Elements("group")
                    .Where(g => (string?)g.Attribute("targetFramework") == tfm)
                    .Descendants("frameworkReference")
                    .Select(f => (string)f.Attribute("name")!)
                    .ToArray()
                    ?? [];
                Assert.Equal(frameworks, frameworkRefs);
            }
        }
    }

    [PackagingFact]
    public async Task The_cli_package_is_a_dotnet_tool_named_amqp_conformance_with_everything_inside()
    {
        // A tool carries its whole closure; it depends on no package.
        using ZipArchive zip = await OpenStandalonePackageAsync("AmqpConformance.Cli", "DotnetTool");
        string[] entries = zip.Entries.Select(e => e.FullName).ToArray();
        Assert.Contains("tools/net10.0/any/amqp-conformance.dll", entries);
        foreach (string library in Expected.Keys)
            Assert.Contains($"tools/net10.0/any/{library}.dll", entries);
        AssertNoTestOnlyContent("AmqpConformance.Cli", entries);

        ZipArchiveEntry settings = zip.Entries.Single(e => e.FullName == "tools/net10.0/any/DotnetToolSettings.xml");
        using Stream stream = settings.Open();
        XElement command = XDocument.Load(stream).Descendants("Command").Single();
        Assert.Equal("amqp-conformance", (string?)command.Attribute("Name"));
        Assert.Equal("amqp-conformance.dll", (string?)command.Attribute("EntryPoint"));
    }

    [PackagingFact]
    public async Task The_templates_package_is_a_dotnet_new_template_with_the_adapter_as_source()
    {
        using ZipArchive zip = await OpenStandalonePackageAsync("AmqpConformance.Templates", "Template");
        string[] entries = zip.Entries.Select(e => e.FullName).ToArray();
        string[] content = entries
            .Where(e => e.StartsWith("content/", StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)
            .ToArray();
        Assert.Equal(
            new[]
            {
                ".template.config/template.json",
                "AmqpConformanceTests.csproj",
                "RabbitMqClientAdapter.cs",
                "RabbitMqClientConformance.cs",
                "WriterConformance.cs",
                "global.json",
            }
                .Select(f => "content/amqp-conformance/" + f)
                .Order(StringComparer.Ordinal),
            content
        );
        Assert.DoesNotContain(entries, e => e.StartsWith("lib/", StringComparison.Ordinal));
    }

    /// <summary>Opens package <paramref name="id"/> after checking its common metadata, its own README, its package
    /// type and that it depends on no package (a tool or a template carries what it needs).</summary>
    private async Task<ZipArchive> OpenStandalonePackageAsync(string id, string packageType)
    {
        await feed.EnsurePackedAsync();
        string nupkg = feed.PackagePath(id);
        output.WriteLine($"{Path.GetFileName(nupkg)}: {new FileInfo(nupkg).Length} bytes");
        XElement meta = PackedFeed.ReadNuspec(nupkg);
        AssertCommonMetadata(id, meta, feed.Version);
        Assert.Equal(packageType, (string?)meta.Element("packageTypes")?.Element("packageType")?.Attribute("name"));
        Assert.Empty(meta.Descendants("dependency"));
        ZipArchive zip = ZipFile.OpenRead(nupkg);
        AssertOwnReadme(id, zip);
        return zip;
    }

    /// <summary>The package carries a README of its own (headed by its id, short), not the repository's front
    /// page.</summary>
    private static void AssertOwnReadme(string id, ZipArchive zip)
    {
        ZipArchiveEntry? readme = zip.GetEntry("README.md");
        Assert.True(readme is not null, $"{id} has no README.md");
        using var reader = new StreamReader(readme.Open());
        string[] lines = reader.ReadToEnd().Split('\n');
        Assert.Equal("# " + id, lines[0].TrimEnd());
        Assert.True(lines.Length < 60, $"{id}'s README has {lines.Length} lines; a package README is a short note");
    }

    private static void AssertCommonMetadata(string id, XElement meta, string version)
    {
        Assert.Equal(id, meta.Element("id")!.Value);
        Assert.Equal(version, meta.Element("version")!.Value);
        XElement license = meta.Element("license")!;
        Assert.Equal("expression", (string?)license.Attribute("type"));
        Assert.Equal("MIT", license.Value);
        Assert.Equal("README.md", meta.Element("readme")?.Value);
        string description = meta.Element("description")!.Value;
        Assert.False(
            string.IsNullOrWhiteSpace(description) || description == "Package Description",
            $"{id} has no description"
        );
        Assert.Contains("amqp", meta.Element("tags")?.Value.Split(' ') ?? [], StringComparer.Ordinal);
        // No made-up addresses: the project has no public URL yet, so none is claimed.
        Assert.Null(meta.Element("projectUrl"));
        Assert.DoesNotContain("example.invalid", meta.ToString(), StringComparison.Ordinal);
    }

    private static void AssertNoTestOnlyContent(string id, string[] entries)
    {
        string[] testOnly = entries
            .Where(e =>
                e.Contains("BrokenWriters", StringComparison.OrdinalIgnoreCase)
                || e.Contains(".Tests.", StringComparison.OrdinalIgnoreCase)
                || e.Contains(".Benchmarks", StringComparison.OrdinalIgnoreCase)
                || e.Contains("testhost", StringComparison.OrdinalIgnoreCase)
                || e.Contains("Microsoft.TestPlatform", StringComparison.OrdinalIgnoreCase)
                || e.Contains("xunit.runner", StringComparison.OrdinalIgnoreCase)
            )
            .ToArray();
        Assert.True(testOnly.Length == 0, $"{id} ships test-only content: {string.Join(", ", testOnly)}");
    }
}
