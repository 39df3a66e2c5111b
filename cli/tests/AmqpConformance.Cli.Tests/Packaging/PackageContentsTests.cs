using System.IO.Compression;
using System.Xml.Linq;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// What <c>dotnet pack</c> makes of the six shipped projects: ids, version, metadata, README, XML docs, symbols, and
/// dependencies on each other as packages (never project paths or test-only code).
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed class PackageContentsTests(PackedFeed feed, ITestOutputHelper output)
{
    /// <summary>Each library's expected dependencies (package ids) and framework references.</summary>
    private static readonly Dictionary<string, (string[] Packages, string[] Frameworks)> Expected = new()
    {
        ["AmqpConformance.Harness"] = ([], []),
        ["AmqpConformance.FakeBroker"] = (["AmqpConformance.Harness"], []),
        ["AmqpConformance.Toxiproxy"] = (["AmqpConformance.FakeBroker"], ["Microsoft.AspNetCore.App"]),
        ["AmqpConformance.Properties"] = (["AmqpConformance.Toxiproxy", "FsCheck", "FSharp.Core"], []),
        ["AmqpConformance.Suites"] = (["AmqpConformance.Properties", "xunit.extensibility.execution"], []),
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
            Assert.Contains("README.md", entries);
            Assert.Contains($"lib/net10.0/{id}.dll", entries);
            Assert.Contains($"lib/net10.0/{id}.xml", entries);
            AssertNoTestOnlyContent(id, entries);

            var dependencies = meta.Element("dependencies")!.Elements("group")
                .Single(g => (string?)g.Attribute("targetFramework") == "net10.0")
                .Elements("dependency").ToList();
            Assert.Equal(packages.Order(StringComparer.Ordinal), dependencies.Select(d => (string)d.Attribute("id")!).Order(StringComparer.Ordinal));
            foreach (XElement dependency in dependencies)
            {
                string version = (string)dependency.Attribute("version")!;
                Assert.False(string.IsNullOrEmpty(version), $"{id} depends on {dependency.Attribute("id")} without a version");
                if (((string)dependency.Attribute("id")!).StartsWith("AmqpConformance.", StringComparison.Ordinal))
                {
                    Assert.Equal(feed.Version, version);
                }
            }
            string[] frameworkRefs = meta.Element("frameworkReferences")?.Descendants("frameworkReference")
                .Select(f => (string)f.Attribute("name")!).ToArray() ?? [];
            Assert.Equal(frameworks, frameworkRefs);

            string snupkg = Path.ChangeExtension(nupkg, ".snupkg");
            Assert.True(File.Exists(snupkg), $"{id}: no symbol package {snupkg}");
            using ZipArchive symbols = ZipFile.OpenRead(snupkg);
            Assert.Contains($"lib/net10.0/{id}.pdb", symbols.Entries.Select(e => e.FullName));
        }
    }

    [PackagingFact]
    public async Task The_cli_package_is_a_dotnet_tool_named_amqp_conformance_with_everything_inside()
    {
        await feed.EnsurePackedAsync();
        string nupkg = feed.PackagePath("AmqpConformance.Cli");
        output.WriteLine($"{Path.GetFileName(nupkg)}: {new FileInfo(nupkg).Length} bytes");
        XElement meta = PackedFeed.ReadNuspec(nupkg);
        AssertCommonMetadata("AmqpConformance.Cli", meta, feed.Version);
        Assert.Equal("DotnetTool", (string?)meta.Element("packageTypes")?.Element("packageType")?.Attribute("name"));
        // A tool carries its whole closure; it depends on no package.
        Assert.Empty(meta.Descendants("dependency"));

        using ZipArchive zip = ZipFile.OpenRead(nupkg);
        string[] entries = zip.Entries.Select(e => e.FullName).ToArray();
        Assert.Contains("README.md", entries);
        Assert.Contains("tools/net10.0/any/amqp-conformance.dll", entries);
        foreach (string library in Expected.Keys) Assert.Contains($"tools/net10.0/any/{library}.dll", entries);
        AssertNoTestOnlyContent("AmqpConformance.Cli", entries);

        ZipArchiveEntry settings = zip.Entries.Single(e => e.FullName == "tools/net10.0/any/DotnetToolSettings.xml");
        using Stream stream = settings.Open();
        XElement command = XDocument.Load(stream).Descendants("Command").Single();
        Assert.Equal("amqp-conformance", (string?)command.Attribute("Name"));
        Assert.Equal("amqp-conformance.dll", (string?)command.Attribute("EntryPoint"));
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
        Assert.False(string.IsNullOrWhiteSpace(description) || description == "Package Description", $"{id} has no description");
        Assert.Contains("amqp", meta.Element("tags")?.Value.Split(' ') ?? [], StringComparer.Ordinal);
        Assert.False(string.IsNullOrEmpty(meta.Element("projectUrl")?.Value), $"{id} has no project URL");
    }

    private static void AssertNoTestOnlyContent(string id, string[] entries)
    {
        string[] testOnly = entries.Where(e =>
            e.Contains("BrokenWriters", StringComparison.OrdinalIgnoreCase)
            || e.Contains(".Tests.", StringComparison.OrdinalIgnoreCase)
            || e.Contains(".Benchmarks", StringComparison.OrdinalIgnoreCase)
            || e.Contains("testhost", StringComparison.OrdinalIgnoreCase)
            || e.Contains("Microsoft.TestPlatform", StringComparison.OrdinalIgnoreCase)
            || e.Contains("xunit.runner", StringComparison.OrdinalIgnoreCase)).ToArray();
        Assert.True(testOnly.Length == 0, $"{id} ships test-only content: {string.Join(", ", testOnly)}");
    }
}
