using System.IO.Compression;
using System.Xml.Linq;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// The shipped projects packed once (Release, <c>dotnet pack</c>) into a temporary folder feed, shared by the packaging
/// tests. Packing happens on first use, not in the constructor, so skipped tests cost nothing. Disposing deletes the folder.
/// </summary>
/// <remarks>
/// Stale packages: the consumer restores through the normal global packages folder, where an earlier run's
/// <c>amqpconformance.*/0.1.0</c> would satisfy the restore without looking at this feed. <see cref="ClearGlobalPackagesAsync"/>
/// deletes exactly those entries (and nothing else) before a restore, and the consumer test then checks each restored
/// package's <c>.nupkg.metadata</c> names this feed as its source.
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
        ["AmqpConformance.Toxiproxy.Server"] = "toxiproxy/src/AmqpConformance.Toxiproxy.Server/AmqpConformance.Toxiproxy.Server.csproj",
        ["AmqpConformance.Properties"] = "properties/src/AmqpConformance.Properties/AmqpConformance.Properties.csproj",
        ["AmqpConformance.Suites"] = "suites/src/AmqpConformance.Suites/AmqpConformance.Suites.csproj",
        ["AmqpConformance.Cli"] = "cli/src/AmqpConformance.Cli/AmqpConformance.Cli.csproj",
        ["AmqpConformance.Templates"] = "templates/src/AmqpConformance.Templates/AmqpConformance.Templates.csproj",
    };

    private static readonly TimeSpan PackTimeout = TimeSpan.FromMinutes(15);
    private readonly SemaphoreSlim _packOnce = new(1, 1);
    private string? _packOutput;
    private Exception? _packFailure;
    private string? _globalPackagesFolder;

    /// <summary>A fresh temporary folder for this run: <c>feed/</c>, <c>artifacts/</c> and whatever the tests create.</summary>
    public string Root { get; } = Directory.CreateTempSubdirectory("amqpc-packaging-").FullName;

    /// <summary>The folder feed the packages are written to.</summary>
    public string FeedDirectory => Path.Combine(Root, "feed");

    /// <summary>The repository root (holds AmqpConformance.sln).</summary>
    public string RepoRoot { get; } = RepositoryRoot.Find();

    /// <summary>The version the packages were packed with (from the Suites package's nuspec).</summary>
    public string Version { get; private set; } = "";

    /// <summary>Packs the shipped projects into <see cref="FeedDirectory"/> on the first call; later calls return at once.</summary>
    /// <returns>What <c>dotnet pack</c> printed.</returns>
    public async Task<string> EnsurePackedAsync()
    {
        await _packOnce.WaitAsync();
        try
        {
            if (_packOutput is not null) return _packOutput;
            if (_packFailure is not null) throw new InvalidOperationException("packing failed in an earlier test; see its output", _packFailure);
            string solution = Path.Combine(Root, "pack.slnx");
            var slnx = new XElement("Solution",
                Projects.Values.Select(p => new XElement("Project", new XAttribute("Path", Path.Combine(RepoRoot, p)))));
            slnx.Save(solution);
            ProcessResult pack = await ProcessRun.RunAsync(
                ProcessRun.DotnetHost,
                ["pack", solution, "-c", "Release", "-o", FeedDirectory, "-nodeReuse:false"],
                Root, PackTimeout,
                new Dictionary<string, string?> { ["AMQPC_ARTIFACTS"] = Path.Combine(Root, "artifacts") });
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
        Directory.GetFiles(FeedDirectory, id + ".*.nupkg")
            .Single(f => Path.GetFileName(f)[(id.Length + 1)..] is var rest && char.IsAsciiDigit(rest[0]));

    /// <summary>The nuspec's &lt;metadata&gt; element of the package at <paramref name="nupkg"/>, without XML namespaces.</summary>
    public static XElement ReadNuspec(string nupkg)
    {
        using ZipArchive zip = ZipFile.OpenRead(nupkg);
        ZipArchiveEntry entry = zip.Entries.Single(e => !e.FullName.Contains('/') && e.FullName.EndsWith(".nuspec", StringComparison.Ordinal));
        using Stream stream = entry.Open();
        XElement package = XDocument.Load(stream).Root!;
        // pack writes the 2012/06 or the 2013/05 nuspec namespace depending on the features used; compare by local name.
        foreach (XElement element in package.DescendantsAndSelf()) element.Name = element.Name.LocalName;
        return package.Element("metadata")!;
    }

    /// <summary>
    /// Writes a nuget.config into <paramref name="directory"/> whose sources are this feed followed by the repository's own
    /// sources (read from the repository's nuget.config), with package source mapping: <c>AmqpConformance.*</c> may come from
    /// this feed only, everything else from the repository's sources only.
    /// </summary>
    public void WriteNugetConfig(string directory)
    {
        XElement[] repoSources = XDocument.Load(Path.Combine(RepoRoot, "nuget.config")).Root!.Element("packageSources")!.Elements("add").ToArray();
        const string FeedKey = "amqpc-packed";
        var sources = new XElement("packageSources", new XElement("clear"),
            new XElement("add", new XAttribute("key", FeedKey), new XAttribute("value", FeedDirectory)), repoSources);
        var mapping = new XElement("packageSourceMapping",
            new XElement("packageSource", new XAttribute("key", FeedKey), new XElement("package", new XAttribute("pattern", "AmqpConformance.*"))),
            repoSources.Select(s => new XElement("packageSource", new XAttribute("key", (string)s.Attribute("key")!),
                new XElement("package", new XAttribute("pattern", "*")))));
        new XDocument(new XElement("configuration", sources, mapping)).Save(Path.Combine(directory, "nuget.config"));
    }

    /// <summary>
    /// Asserts that every <c>AmqpConformance.*</c> package in <paramref name="ids"/> was restored into
    /// <paramref name="globalPackages"/> from this feed (its <c>.nupkg.metadata</c> names the feed), not from a stale copy.
    /// </summary>
    public void AssertRestoredFromFeed(string globalPackages, IEnumerable<string> ids)
    {
        foreach (string id in ids)
        {
            string metadata = Path.Combine(globalPackages, id.ToLowerInvariant(), Version, ".nupkg.metadata");
            Assert.True(File.Exists(metadata), $"{id} {Version} was not restored into {globalPackages}");
            using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(metadata));
            string source = json.RootElement.GetProperty("source").GetString()!;
            Assert.Equal(Path.TrimEndingDirectorySeparator(FeedDirectory), Path.TrimEndingDirectorySeparator(source));
        }
    }

    /// <summary>The environment of a child <c>dotnet</c> that builds or runs a client's project: none of this repository's
    /// variables that would steer it, and the net8.0 test host allowed to roll forward onto the newer runtime installed here.</summary>
    public static Dictionary<string, string?> ClientEnvironment() => new()
    {
        ["AMQP_CONFORMANCE_CASES"] = null,
        ["AMQP_CONFORMANCE_REPLAY"] = null,
        ["AMQP_CONFORMANCE_REPORTS"] = null,
        ["AMQPC_ARTIFACTS"] = null,
        ["DOTNET_ROLL_FORWARD"] = "Major",
    };

    /// <summary>
    /// Deletes every <c>amqpconformance.*</c> folder from the global packages folder that a restore in
    /// <paramref name="workingDirectory"/> uses, and returns that folder. <see cref="Dispose"/> deletes them again, so no
    /// entry pointing at this run's (deleted) feed stays behind.
    /// </summary>
    public async Task<string> ClearGlobalPackagesAsync(string workingDirectory)
    {
        ProcessResult locals = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost, ["nuget", "locals", "global-packages", "--list"], workingDirectory, TimeSpan.FromMinutes(2));
        string line = locals.Output.Split('\n').Single(l => l.StartsWith("global-packages:", StringComparison.Ordinal));
        string folder = line["global-packages:".Length..].Trim();
        DeleteAmqpConformanceEntries(folder);
        _globalPackagesFolder = folder;
        return folder;
    }

    private static void DeleteAmqpConformanceEntries(string globalPackagesFolder)
    {
        if (!Directory.Exists(globalPackagesFolder)) return;
        foreach (string entry in Directory.GetDirectories(globalPackagesFolder, "amqpconformance.*")) Directory.Delete(entry, recursive: true);
    }

    /// <inheritdoc />
    public void Dispose()
    {
        _packOnce.Dispose();
        if (_globalPackagesFolder is not null)
        {
            try { DeleteAmqpConformanceEntries(_globalPackagesFolder); } catch (IOException) { /* the next run clears them first anyway */ }
        }
        try { Directory.Delete(Root, recursive: true); } catch (IOException) { /* a child still holds a file; it is a temp folder */ }
    }
}
