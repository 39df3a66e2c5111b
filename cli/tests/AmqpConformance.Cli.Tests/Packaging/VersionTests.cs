using System.Globalization;
using System.IO.Compression;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// Versions come from git (MinVer, set up in Directory.Build.props; docs/ci.md#versions): each commit packs a version
/// of its own, a pre-release whose last number is the commit's height, and a tag <c>vX.Y.Z</c> packs release X.Y.Z.
/// Proven in a <c>git clone</c> inside a folder named <c>src</c> (<see cref="ClonedRepository"/>), and on the full
/// pack.
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed partial class VersionTests(PackedFeed feed, ITestOutputHelper output)
{
    private const string Protocol = "AmqpConformance.Protocol";

    [PackagingFact]
    public async Task Each_commit_packs_a_higher_pre_release_and_a_consumer_gets_the_newer_one_with_nothing_cleared()
    {
        ClonedRepository clone = await ClonedRepository.GetAsync(feed);
        Assert.Contains(
            $"{Path.DirectorySeparatorChar}src{Path.DirectorySeparatorChar}",
            clone.Root,
            StringComparison.Ordinal
        );
        string feedDirectory = Path.Combine(clone.Workspace, "feed-heights");
        (string first, string firstNupkg, string firstOutput) = await clone.PackProtocolAsync(feedDirectory);
        output.WriteLine($"first pack: {Path.GetFileName(firstNupkg)}");

        // Which projects ship is decided by what they are, not by the clone's absolute path, although every project's
        // path here has a "/src/" in it: the library ships for net8.0 and net10.0, a test project and the tool are not
        // libraries.
        using (ZipArchive zip = ZipFile.OpenRead(firstNupkg))
        {
            foreach (string tfm in new[] { "net8.0", "net10.0" })
                Assert.Contains($"lib/{tfm}/{Protocol}.dll", zip.Entries.Select(e => e.FullName));
        }
        foreach (
            string project in new[]
            {
                "protocol/tests/AmqpConformance.Protocol.Tests/AmqpConformance.Protocol.Tests.csproj",
                PackedFeed.Projects["AmqpConformance.Cli"],
            }
        )
        {
            (string shipped, string frameworks) = await ShippedAndFrameworksAsync(Path.Combine(clone.Root, project));
            Assert.True(
                shipped == "" && frameworks == "net10.0",
                $"{project} in the clone: IsShippedLibrary='{shipped}', frameworks '{frameworks}'"
            );
        }

        // A consumer as samples/MyAmqpClient is one: the newest version the feed holds (*-*), resolved on every
        // restore.
        string consumer = Directory.CreateDirectory(Path.Combine(clone.Workspace, "version-consumer")).FullName;
        string packages = Path.Combine(consumer, "packages");
        await File.WriteAllTextAsync(
            Path.Combine(consumer, "Consumer.csproj"),
            $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <TreatWarningsAsErrors>true</TreatWarningsAsErrors>
                <RestoreForce>true</RestoreForce>
              </PropertyGroup>
              <ItemGroup>
                <PackageReference Include="{Protocol}" Version="*-*" />
              </ItemGroup>
            </Project>
            """
        );
        await feed.WriteNugetConfigAsync(consumer, feedDirectory);
        Assert.Equal(first, await RestoreAsync(consumer, packages));
        PackedFeed.AssertRestoredFrom(feedDirectory, packages, [Protocol], first);

        await clone.CommitAsync("one more commit");
        (string second, string secondNupkg, _) = await clone.PackProtocolAsync(feedDirectory);
        output.WriteLine($"second pack, one commit later: {Path.GetFileName(secondNupkg)}");
        Assert.Contains(firstNupkg, Directory.GetFiles(feedDirectory, "*.nupkg"));

        // Both pre-releases whose last number is the height; one commit later, one higher, and higher in NuGet's order.
        (string firstRelease, int firstHeight) = ParsePreRelease(first, firstOutput);
        (string secondRelease, int secondHeight) = ParsePreRelease(second, "");
        Assert.Equal(firstRelease, secondRelease);
        Assert.Equal(firstHeight + 1, secondHeight);
        Assert.True(CompareSemVer(second, first) > 0, $"{second} does not come after {first}");

        // The same consumer, the same global packages folder, nothing cleared: the restore takes the newer pack from
        // the feed.
        Assert.Equal(second, await RestoreAsync(consumer, packages));
        PackedFeed.AssertRestoredFrom(feedDirectory, packages, [Protocol], second);
        Assert.True(
            Directory.Exists(Path.Combine(packages, Protocol.ToLowerInvariant(), first)),
            "the first pack's entry is gone from the packages folder"
        );
    }

    [PackagingFact]
    public async Task A_tag_v1_2_3_packs_release_1_2_3()
    {
        ClonedRepository clone = await ClonedRepository.GetAsync(feed);
        await clone.GitAsync("tag", "v1.2.3");
        try
        {
            (string version, string nupkg, _) = await clone.PackProtocolAsync(
                Path.Combine(clone.Workspace, "feed-tag")
            );
            output.WriteLine($"tagged pack: {Path.GetFileName(nupkg)}");
            Assert.Equal("1.2.3", version);
            Assert.Equal($"{Protocol}.1.2.3.nupkg", Path.GetFileName(nupkg));
        }
        finally
        {
            // The clone's other test packs pre-releases of untagged commits.
            await clone.GitAsync("tag", "-d", "v1.2.3");
        }
    }

    [PackagingFact]
    public async Task The_full_pack_has_a_version_from_git_and_the_template_asks_for_exactly_that_version()
    {
        await feed.EnsurePackedAsync();
        output.WriteLine($"packed version: {feed.Version}");
        Assert.NotEqual("0.1.0", feed.Version);
        if (Path.Exists(Path.Combine(feed.RepoRoot, ".git")))
            Assert.Matches(FromGit(), feed.Version);
        else
            Assert.Equal("0.1.0-local", feed.Version); // a copy without git history (Directory.Build.props)
        foreach (string id in PackedFeed.Projects.Keys)
            Assert.Equal(feed.Version, PackedFeed.ReadNuspec(feed.PackagePath(id)).Element("version")!.Value);

        using ZipArchive zip = ZipFile.OpenRead(feed.PackagePath("AmqpConformance.Templates"));
        ZipArchiveEntry entry = zip.GetEntry("content/amqp-conformance/AmqpConformanceTests.csproj")!;
        using Stream stream = entry.Open();
        XDocument project = XDocument.Load(stream);
        string[] versions =
        [
            .. project
                .Descendants("PackageReference")
                .Where(r => ((string)r.Attribute("Include")!).StartsWith("AmqpConformance.", StringComparison.Ordinal))
                .Select(r => (string)r.Attribute("Version")!),
        ];
        // One reference for the xunit 2 project and one for --xunit 3 (the template's conditional branches), both that
        // version.
        Assert.Equal(2, versions.Length);
        Assert.All(versions, v => Assert.Equal(feed.Version, v));
        Assert.DoesNotContain(TemplateTests.VersionPlaceholder, project.ToString(), StringComparison.Ordinal);
    }

    /// <summary>A version MinVer makes: a release (tagged commit) or the pre-release
    /// <c>X.Y.Z-alpha.0[.height]</c>.</summary>
    [GeneratedRegex(@"^\d+\.\d+\.\d+(-alpha\.0(\.\d+)?)?$")]
    private static partial Regex FromGit();

    [GeneratedRegex(@"^(\d+\.\d+\.\d+)-alpha\.0\.(\d+)$")]
    private static partial Regex PreReleaseWithHeight();

    private static (string Release, int Height) ParsePreRelease(string version, string packOutput)
    {
        Match match = PreReleaseWithHeight().Match(version);
        Assert.True(match.Success, $"{version} is not a pre-release X.Y.Z-alpha.0.<height>\n{packOutput}");
        return (match.Groups[1].Value, int.Parse(match.Groups[2].Value, CultureInfo.InvariantCulture));
    }

    /// <summary>SemVer 2.0 precedence, which NuGet's version order follows (pre-release labels compared
    /// case-insensitively).</summary>
    internal static int CompareSemVer(string a, string b)
    {
        static (int[] Release, string[] Pre) Split(string v)
        {
            string[] parts = v.Split('+')[0].Split('-', 2);
            return (
                [.. parts[0].Split('.').Select(p => int.Parse(p, CultureInfo.InvariantCulture))],
                parts.Length > 1 ? parts[1].Split('.') : []
            );
        }
        (int[] ra, string[] pa) = Split(a);
        (int[] rb, string[] pb) = Split(b);
        for (int i = 0; i < 3; i++)
            if (ra[i] != rb[i])
                return ra[i].CompareTo(rb[i]);
        if (pa.Length == 0 || pb.Length == 0)
            return pb.Length.CompareTo(pa.Length); // a release comes after its pre-releases
        for (int i = 0; i < Math.Min(pa.Length, pb.Length); i++)
        {
            bool na = int.TryParse(pa[i], NumberStyles.None, CultureInfo.InvariantCulture, out int ia);
            bool nb = int.TryParse(pb[i], NumberStyles.None, CultureInfo.InvariantCulture, out int ib);
            int c =
                na && nb ? ia.CompareTo(ib)
                : na ? -1
                : nb ? 1
                : string.Compare(pa[i], pb[i], StringComparison.OrdinalIgnoreCase);
            if (c != 0)
                return c;
        }
        return pa.Length.CompareTo(pb.Length);
    }

    /// <summary>Restores <paramref name="consumer"/> into <paramref name="packages"/> and returns the Protocol version
    /// it got.</summary>
    private async Task<string> RestoreAsync(string consumer, string packages)
    {
        ProcessResult restore = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["restore", "-nodeReuse:false"],
            consumer,
            TimeSpan.FromMinutes(5),
            new Dictionary<string, string?> { ["NUGET_PACKAGES"] = packages, ["AMQPC_ARTIFACTS"] = null }
        );
        output.WriteLine(restore.Output);
        Assert.True(
            restore.ExitCode == 0,
            $"dotnet restore of the consumer failed ({restore.ExitCode}):\n{restore.Output}"
        );
        using JsonDocument assets = JsonDocument.Parse(
            await File.ReadAllTextAsync(Path.Combine(consumer, "obj", "project.assets.json"))
        );
        return assets
            .RootElement.GetProperty("libraries")
            .EnumerateObject()
            .Select(l => l.Name.Split('/'))
            .Single(n => n[0] == Protocol)[1];
    }

    /// <summary>IsShippedLibrary and the target framework(s) of <paramref name="project"/>, by evaluation
    /// only.</summary>
    private async Task<(string Shipped, string Frameworks)> ShippedAndFrameworksAsync(string project)
    {
        ProcessResult evaluate = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            [
                "msbuild",
                project,
                "-getProperty:IsShippedLibrary",
                "-getProperty:TargetFrameworks",
                "-getProperty:TargetFramework",
                "-nodeReuse:false",
            ],
            Path.GetDirectoryName(project)!,
            TimeSpan.FromMinutes(2)
        );
        Assert.True(evaluate.ExitCode == 0, $"evaluating {project} failed:\n{evaluate.Output}");
        using JsonDocument json = JsonDocument.Parse(
            evaluate.Output[evaluate.Output.IndexOf('{', StringComparison.Ordinal)..]
        );
        JsonElement properties = json.RootElement.GetProperty("Properties");
        string frameworks = properties.GetProperty("TargetFrameworks").GetString() is { Length: > 0 } many
            ? many
            : properties.GetProperty("TargetFramework").GetString()!;
        return (properties.GetProperty("IsShippedLibrary").GetString()!, frameworks);
    }
}
