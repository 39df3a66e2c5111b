using System.Runtime.CompilerServices;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// A copy of <c>samples/MyAmqpClient</c> in the packed feed's temporary folder, built once per feed, as a user would
/// build it: its nuget.config points at the feed for <c>AmqpConformance.*</c> and at the repository's sources for
/// everything else; its other files are unchanged (its floating <c>AmqpConformance.Suites</c> version takes the
/// feed's), but for one probe file (<c>Packaging/probe/</c>) that adds a failing suite for the report tests.
/// </summary>
public sealed class SampleRepository
{
    private static readonly ConditionalWeakTable<PackedFeed, Task<SampleRepository>> Built = new();

    private readonly PackedFeed _feed;

    private SampleRepository(string root, PackedFeed feed, string buildOutput)
    {
        Root = root;
        _feed = feed;
        GlobalPackages = feed.GlobalPackagesFolder;
        BuildOutput = buildOutput;
    }

    /// <summary>The copy's root folder (where its README, Directory.*.props and nuget.config are).</summary>
    public string Root { get; }

    /// <summary>The test project's path relative to <see cref="Root"/>.</summary>
    public static string TestProject => Path.Combine("tests", "MyAmqpClient.Tests");

    /// <summary>The global packages folder the copy restored into (the feed's own).</summary>
    public string GlobalPackages { get; }

    /// <summary>What <c>dotnet build</c> printed.</summary>
    public string BuildOutput { get; }

    /// <summary>The copy for <paramref name="feed"/>, packed, copied and built on the first call.</summary>
    public static Task<SampleRepository> GetAsync(PackedFeed feed)
    {
        lock (Built)
            return Built.GetValue(feed, CreateAsync);
    }

    private static async Task<SampleRepository> CreateAsync(PackedFeed feed)
    {
        await feed.EnsurePackedAsync();
        string source = Path.Combine(feed.RepoRoot, "samples", "MyAmqpClient");
        string root = Path.Combine(feed.Root, "MyAmqpClient");
        foreach (string file in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(source, file);
            if (relative.Split(Path.DirectorySeparatorChar).Any(part => part is "bin" or "obj" or "TestResults"))
                continue;
            Directory.CreateDirectory(Path.GetDirectoryName(Path.Combine(root, relative))!);
            File.Copy(file, Path.Combine(root, relative));
        }
        await feed.WriteNugetConfigAsync(root);
        File.Copy(
            feed.ProbeSource("DuplicatingWriterConformance.cs.txt"),
            Path.Combine(root, TestProject, "DuplicatingWriterConformance.cs")
        );

        ProcessResult build = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["build", TestProject, "-nodeReuse:false"],
            root,
            TimeSpan.FromMinutes(15),
            feed.ClientEnvironment()
        );
        if (build.ExitCode != 0)
            throw new InvalidOperationException(
                $"dotnet build of the sample failed ({build.ExitCode}):\n{build.Output}"
            );
        return new SampleRepository(root, feed, build.Output);
    }

    /// <summary>Runs <c>dotnet</c> with <paramref name="arguments"/> in <see cref="Root"/>, as the user
    /// would.</summary>
    public Task<ProcessResult> DotnetAsync(params string[] arguments) =>
        ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            arguments,
            Root,
            TimeSpan.FromMinutes(15),
            _feed.ClientEnvironment()
        );
}
