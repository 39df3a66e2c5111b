using System.Runtime.CompilerServices;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// A <c>git clone</c> of this repository inside a folder named <c>src</c> (<c>&lt;feed
/// root&gt;/src/amqp-conformance</c>), as CI and many developers clone it, where <c>AmqpConformance.Protocol</c> alone
/// is packed (one small shipped project; the whole set is <see cref="PackedFeed"/>'s). Made once per feed, on first
/// use.
/// </summary>
/// <remarks>
/// A clone holds the repository's HEAD only. The working tree's build settings (the root's Directory.Build.props,
/// Directory.Build.targets, Directory.Packages.props and nuget.config), which make the versions, are copied over it and
/// committed in the clone, so the tests check the settings about to be committed as CI checks the committed ones. That
/// commit is made even when nothing differs, so the clone's HEAD is never a tagged commit of the repository.
/// </remarks>
public sealed class ClonedRepository
{
    private static readonly ConditionalWeakTable<PackedFeed, Task<ClonedRepository>> Cloned = new();
    private static readonly string[] BuildSettings =
    [
        "Directory.Build.props",
        "Directory.Build.targets",
        "Directory.Packages.props",
        "nuget.config",
    ];
    private static readonly TimeSpan PackTimeout = TimeSpan.FromMinutes(10);
    private static readonly TimeSpan GitTimeout = TimeSpan.FromMinutes(2);

    private ClonedRepository(string root, string workspace)
    {
        Root = root;
        Workspace = workspace;
    }

    /// <summary>The clone's root folder: <c>&lt;feed root&gt;/src/amqp-conformance</c>.</summary>
    public string Root { get; }

    /// <summary>A folder beside the clone (the feed's root) for feeds, build output and consumers, outside the clone's
    /// tree.</summary>
    public string Workspace { get; }

    /// <summary>The shipped project packed in the clone, relative to its root.</summary>
    public static string ProtocolProject => PackedFeed.Projects["AmqpConformance.Protocol"];

    /// <summary>The clone for <paramref name="feed"/>, cloned on the first call.</summary>
    public static Task<ClonedRepository> GetAsync(PackedFeed feed)
    {
        lock (Cloned)
            return Cloned.GetValue(feed, CreateAsync);
    }

    private static async Task<ClonedRepository> CreateAsync(PackedFeed feed)
    {
        if (!Path.Exists(Path.Combine(feed.RepoRoot, ".git")))
        {
            throw new InvalidOperationException(
                $"{feed.RepoRoot} has no git history (.git), so it cannot be cloned; the version tests need it (AMQPC_SKIP_PACKAGING=1 skips them)."
            );
        }
        string root = Path.Combine(feed.Root, "src", "amqp-conformance");
        Directory.CreateDirectory(Path.GetDirectoryName(root)!);
        await RunGitAsync(feed.Root, "clone", "--quiet", feed.RepoRoot, root);
        var clone = new ClonedRepository(root, feed.Root);
        foreach (string file in BuildSettings)
        {
            string source = Path.Combine(feed.RepoRoot, file);
            if (File.Exists(source))
                File.Copy(source, Path.Combine(root, file), overwrite: true);
        }
        await clone.GitAsync(["add", "--", .. BuildSettings.Where(f => File.Exists(Path.Combine(root, f)))]);
        await clone.CommitAsync("The working tree's build settings");
        return clone;
    }

    /// <summary>Runs <c>git</c> with <paramref name="arguments"/> in the clone; throws with its output when it
    /// fails.</summary>
    public Task<string> GitAsync(params string[] arguments) => RunGitAsync(Root, arguments);

    /// <summary>Commits what is staged (possibly nothing) in the clone as a throwaway author.</summary>
    public Task<string> CommitAsync(string message) =>
        GitAsync(
            "-c",
            "user.name=amqpc-tests",
            "-c",
            "user.email=amqpc-tests@localhost",
            "-c",
            "commit.gpgsign=false",
            "commit",
            "--quiet",
            "--allow-empty",
            "--no-verify",
            "-m",
            message
        );

    /// <summary>
    /// Packs <see cref="ProtocolProject"/> in the clone (Release) into <paramref name="output"/> and returns the
    /// version of the package it made. Every pack of the clone shares one build output folder, so later packs build
    /// incrementally. Throws if the pack fails or writes no package that was not there before (a version packed twice).
    /// </summary>
    public async Task<(string Version, string Nupkg, string Output)> PackProtocolAsync(string output)
    {
        Directory.CreateDirectory(output);
        HashSet<string> before = [.. Directory.GetFiles(output, "*.nupkg")];
        ProcessResult pack = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["pack", Path.Combine(Root, ProtocolProject), "-c", "Release", "-o", output, "-nodeReuse:false"],
            Root,
            PackTimeout,
            new Dictionary<string, string?> { ["AMQPC_ARTIFACTS"] = Path.Combine(Workspace, "clone-artifacts") }
        );
        if (pack.ExitCode != 0)
            throw new InvalidOperationException($"dotnet pack in the clone failed ({pack.ExitCode}):\n{pack.Output}");
        string[] made =
        [
            .. Directory.GetFiles(output, "AmqpConformance.Protocol.*.nupkg").Where(f => !before.Contains(f)),
        ];
        if (made.Length != 1)
        {
            throw new InvalidOperationException(
                $"dotnet pack in the clone made {made.Length} new packages (one expected; none means it packed a version again):\n{pack.Output}"
            );
        }
        string version = PackedFeed.ReadNuspec(made[0]).Element("version")!.Value;
        return (version, made[0], pack.Output);
    }

    private static async Task<string> RunGitAsync(string workingDirectory, params string[] arguments)
    {
        ProcessResult git = await ProcessRun.RunAsync(
            "git",
            arguments,
            workingDirectory,
            GitTimeout,
            new Dictionary<string, string?> { ["GIT_TERMINAL_PROMPT"] = "0" }
        );
        if (git.ExitCode != 0)
            throw new InvalidOperationException(
                $"git {string.Join(' ', arguments)} failed ({git.ExitCode}):\n{git.Output}"
            );
        return git.Output;
    }
}
