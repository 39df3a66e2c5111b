using System.IO.Compression;
using System.Xml.Linq;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// The shipped projects packed once (Release, <c>dotnet pack</c>) into a temporary folder feed, shared by the packaging
/// tests. Packing happens on first use, not in the constructor, so skipped tests cost nothing. Disposing deletes the
/// folder.
/// </summary>
/// <remarks>
/// Versions come from git (MinVer), so a pack of another commit has another version; two packs of the same commit (two
/// test runs, say) share one, though. The consumers therefore restore into a global packages folder of this feed's own
/// (<see cref="GlobalPackagesFolder"/>), which nothing but this run has filled: nothing is cleared, nobody's packages
/// folder is touched, and <see cref="AssertRestoredFromFeed"/> checks each restored package's <c>.nupkg.metadata</c>
/// names this feed. Packages other than <c>AmqpConformance.*</c> are copied from the outer global packages folder where
/// it has them (see <see cref="WriteNugetConfigAsync"/>), so the isolation costs no downloads.
/// </remarks>
public sealed class PackedFeed : IDisposable
{
    /// <summary>The shipped projects, by package id, with their path under the repository root.</summary>
    public static readonly IReadOnlyDictionary<string, string> Projects = new Dictionary<string, string>
    {
        ["AmqpConformance.Protocol"] = "protocol/src/AmqpConformance.Protocol/AmqpConformance.Protocol.csproj",
        ["AmqpConformance.Harness"] = "harness/src/AmqpConformance.Harness/AmqpConformance.Harness.csproj",
        ["AmqpConformance.FakeBroker"] = "fakebroker/src/AmqpConformance.FakeBroker/AmqpConformance.FakeBroker.csproj",
        ["AmqpConformance.Toxiproxy"] = "toxiproxy/src/AmqpConformance.Toxiproxy/AmqpConformance.Toxiproxy.csproj",
        ["AmqpConformance.Toxiproxy.Server"] =
            "toxiproxy/src/AmqpConformance.Toxiproxy.Server/AmqpConformance.Toxiproxy.Server.csproj",
        ["AmqpConformance.Properties"] = "properties/src/AmqpConformance.Properties/AmqpConformance.Properties.csproj",
        ["AmqpConformance.Suites"] = "suites/src/AmqpConformance.Suites/AmqpConformance.Suites.csproj",
        ["AmqpConformance.Suites.XunitV3"] =
            "suites/src/AmqpConformance.Suites.XunitV3/AmqpConformance.Suites.XunitV3.csproj",
        ["AmqpConformance.Cli"] = "cli/src/AmqpConformance.Cli/AmqpConformance.Cli.csproj",
        ["AmqpConformance.Templates"] = "templates/src/AmqpConformance.Templates/AmqpConformance.Templates.csproj",
    };

    private static readonly TimeSpan PackTimeout = TimeSpan.FromMinutes(15);
    private readonly SemaphoreSlim _packOnce = new(1, 1);
    private string? _packOutput;
    private Exception? _packFailure;
    private readonly SemaphoreSlim _outerOnce = new(1, 1);
    private string? _outerGlobalPackages;

    /// <summary>A fresh temporary folder for this run: <c>feed/</c>, <c>artifacts/</c> and whatever the tests
    /// create.</summary>
    public string Root { get; } = Directory.CreateTempSubdirectory("amqpc-packaging-").FullName;

    /// <summary>The folder feed the packages are written to.</summary>
    public string FeedDirectory => Path.Combine(Root, "feed");

    /// <summary>The repository root (holds AmqpConformance.sln).</summary>
    public string RepoRoot { get; } = RepositoryRoot.Find();

    /// <summary>The path of <paramref name="name"/> among the sources the packaging tests add to the projects they make
    /// (<c>Packaging/probe</c>: C# kept as <c>.cs.txt</c>, so this project does not compile it).</summary>
    public string ProbeSource(string name) =>
        Path.Combine(RepoRoot, "cli", "tests", "AmqpConformance.Cli.Tests", "Packaging", "probe", name);

    /// <summary>The global packages folder of this feed's consumers (<c>NUGET_PACKAGES</c> in
    /// <see cref="ClientEnvironment"/>), empty before the first restore.</summary>
    public string GlobalPackagesFolder => Path.Combine(Root, "packages");

    /// <summary>The version the packages were packed with (from the Suites package's nuspec).</summary>
    public string Version { get; private set; } = "";

    /// <summary>Packs the shipped projects into <see cref="FeedDirectory"/> on the first call; later calls return at
    /// once.</summary>
    /// <returns>What <c>dotnet pack</c> printed.</returns>
    public async Task<string> EnsurePackedAsync()
    {
        await _packOnce.WaitAsync();
        try
        {
            if (_packOutput is not null)
                return _packOutput;
            if (_packFailure is not null)
                throw new InvalidOperationException("packing failed in an earlier test; see its output", _packFailure);
            string solution = Path.Combine(Root, "pack.slnx");
            var slnx = new XElement(
                "Solution",
                Projects.Values.Select(p => new XElement("Project", new XAttribute("Path", Path.Combine(RepoRoot, p))))
            );
            slnx.Save(solution);
            ProcessResult pack = await ProcessRun.RunAsync(
                ProcessRun.DotnetHost,
                ["pack", solution, "-c", "Release", "-o", FeedDirectory, "-nodeReuse:false"],
                Root,
                PackTimeout,
                new Dictionary<string, string?>
                {
                    ["AMQPC_ARTIFACTS"] = Path.Combine(Root, "artifacts"),
                    ["GIT_OPTIONAL_LOCKS"] = "0",
                }
            );
            if (pack.ExitCode != 0)
            {
                _packFailure = new InvalidOperationException($"dotnet pack failed ({pack.ExitCode}):\n{pack.Output}");
                throw _packFailure;
            }
            Version = ReadNuspec(PackagePath("AmqpConformance.Suites")).Element("version")!.Value;
            _packOutput = pack.Output;
            return _packOutput;
        }
        finally
        {
            _packOnce.Release();
        }
    }

    /// <summary>The path of package <paramref name="id"/>'s .nupkg in the feed (the only one with that id).</summary>
    public string PackagePath(string id) =>
        Directory
            .GetFiles(FeedDirectory, id + ".*.nupkg")
            .Single(f => Path.GetFileName(f)[(id.Length + 1)..] is var rest && char.IsAsciiDigit(rest[0]));

    /// <summary>The nuspec's &lt;metadata&gt; element of the package at <paramref name="nupkg"/>, without XML
    /// namespaces.</summary>
    public static XElement ReadNuspec(string nupkg)
    {
        using ZipArchive zip = ZipFile.OpenRead(nupkg);
        ZipArchiveEntry entry = zip.Entries.Single(e =>
            !e.FullName.Contains('/') && e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)
        );
        using Stream stream = entry.Open();
        XElement package = XDocument.Load(stream).Root!;
        // pack writes the 2012/06 or the 2013/05 nuspec namespace depending on the features used; compare by local
        // name.
        foreach (XElement element in package.DescendantsAndSelf())
            element.Name = element.Name.LocalName;
        return package.Element("metadata")!;
    }

    /// <summary>
    /// Writes a nuget.config into <paramref name="directory"/> whose sources are <paramref name="feed"/> (this feed
    /// when null), the outer global packages folder (the one this test's own build restored into, read as a local feed)
    /// and the repository's own sources (read from the repository's nuget.config), with package source mapping:
    /// <c>AmqpConformance.*</c> may come from the feed only, everything else from the other sources only. The outer
    /// folder only saves downloads (the net8.0 reference pack among them): its <c>AmqpConformance.*</c> entries, of any
    /// run, are never used.
    /// </summary>
    public async Task WriteNugetConfigAsync(string directory, string? feed = null)
    {
        XElement[] repoSources = XDocument
            .Load(Path.Combine(RepoRoot, "nuget.config"))
            .Root!.Element("packageSources")!
            .Elements("add")
            .ToArray();
        const string FeedKey = "amqpc-packed";
        string outer = await OuterGlobalPackagesAsync();
        XElement[] others = Directory.Exists(outer)
            ?
            [
                new XElement("add", new XAttribute("key", "amqpc-outer-packages"), new XAttribute("value", outer)),
                .. repoSources,
            ]
            : repoSources;
        var sources = new XElement(
            "packageSources",
            new XElement("clear"),
            new XElement("add", new XAttribute("key", FeedKey), new XAttribute("value", feed ?? FeedDirectory)),
            others
        );
        var mapping = new XElement(
            "packageSourceMapping",
            new XElement(
                "packageSource",
                new XAttribute("key", FeedKey),
                new XElement("package", new XAttribute("pattern", "AmqpConformance.*"))
            ),
            others.Select(s => new XElement(
                "packageSource",
                new XAttribute("key", (string)s.Attribute("key")!),
                new XElement("package", new XAttribute("pattern", "*"))
            ))
        );
        new XDocument(new XElement("configuration", sources, mapping)).Save(Path.Combine(directory, "nuget.config"));
    }

    /// <summary>
    /// Asserts that every <c>AmqpConformance.*</c> package in <paramref name="ids"/> was restored into
    /// <paramref name="globalPackages"/> from this feed (its <c>.nupkg.metadata</c> names the feed), not from a stale
    /// copy.
    /// </summary>
    public void AssertRestoredFromFeed(string globalPackages, IEnumerable<string> ids) =>
        AssertRestoredFrom(FeedDirectory, globalPackages, ids, Version);

    /// <summary>
    /// Asserts that version <paramref name="version"/> of every package in <paramref name="ids"/> was restored into
    /// <paramref name="globalPackages"/> from the folder feed <paramref name="feed"/> (its <c>.nupkg.metadata</c> names
    /// it).
    /// </summary>
    public static void AssertRestoredFrom(string feed, string globalPackages, IEnumerable<string> ids, string version)
    {
        foreach (string id in ids)
        {
            string metadata = Path.Combine(globalPackages, id.ToLowerInvariant(), version, ".nupkg.metadata");
            Assert.True(File.Exists(metadata), $"{id} {version} was not restored into {globalPackages}");
            using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(metadata));
            string source = json.RootElement.GetProperty("source").GetString()!;
            Assert.Equal(Path.TrimEndingDirectorySeparator(feed), Path.TrimEndingDirectorySeparator(source));
        }
    }

    /// <summary>The environment of a child <c>dotnet</c> that builds or runs a client's project: none of this
    /// repository's variables that would steer it, the net8.0 test host allowed to roll forward onto the newer runtime
    /// installed here, and <see cref="GlobalPackagesFolder"/> as its global packages folder.</summary>
    public Dictionary<string, string?> ClientEnvironment() =>
        new()
        {
            ["AMQP_CONFORMANCE_CASES"] = null,
            ["AMQP_CONFORMANCE_REPLAY"] = null,
            ["AMQP_CONFORMANCE_REPORTS"] = null,
            ["AMQPC_ARTIFACTS"] = null,
            ["DOTNET_ROLL_FORWARD"] = "Major",
            ["NUGET_PACKAGES"] = GlobalPackagesFolder,
        };

    /// <summary>The global packages folder a restore outside this feed uses (the one this test's own build restored
    /// into), asked of <c>dotnet nuget locals</c> once.</summary>
    private async Task<string> OuterGlobalPackagesAsync()
    {
        await _outerOnce.WaitAsync();
        try
        {
            if (_outerGlobalPackages is not null)
                return _outerGlobalPackages;
            ProcessResult locals = await ProcessRun.RunAsync(
                ProcessRun.DotnetHost,
                ["nuget", "locals", "global-packages", "--list"],
                RepoRoot,
                TimeSpan.FromMinutes(2)
            );
            string line = locals
                .Output.Split('\n')
                .Single(l => l.StartsWith("global-packages:", StringComparison.Ordinal));
            _outerGlobalPackages = Path.TrimEndingDirectorySeparator(line["global-packages:".Length..].Trim());
            return _outerGlobalPackages;
        }
        finally
        {
            _outerOnce.Release();
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        _packOnce.Dispose();
        _outerOnce.Dispose();
        try
        {
            Directory.Delete(Root, recursive: true);
        }
        catch (IOException)
        { /* a child still holds a file; it is a temp folder */
        }
    }
}
