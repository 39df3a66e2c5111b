using System.Security.Cryptography;
using System.Text.RegularExpressions;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// Installs the packed CLI the way a user does (<c>dotnet tool install --tool-path ...</c>, the feed in nuget.config)
/// and runs the installed <c>amqp-conformance --help</c>.
/// </summary>
[Collection(PackagingCollection.Name)]
[Trait("Category", "Packaging")]
public sealed partial class ToolInstallTests(PackedFeed feed, ITestOutputHelper output)
{
    [PackagingFact]
    public async Task The_installed_tool_lists_the_broker_proxy_and_run_commands()
    {
        await feed.EnsurePackedAsync();
        string work = Directory.CreateDirectory(Path.Combine(feed.Root, "tool-user")).FullName;
        string toolPath = Path.Combine(work, "tools");
        await feed.WriteNugetConfigAsync(work);

        ProcessResult install = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["tool", "install", "--tool-path", toolPath, "AmqpConformance.Cli", "--version", feed.Version],
            work,
            TimeSpan.FromMinutes(5)
        );
        output.WriteLine(install.Output);
        Assert.True(install.ExitCode == 0, $"dotnet tool install failed ({install.ExitCode}):\n{install.Output}");

        // The tool path has its own package store (no global packages folder involved): the package there is this
        // run's.
        string installed = Path.Combine(
            toolPath,
            ".store",
            "amqpconformance.cli",
            feed.Version,
            "amqpconformance.cli",
            feed.Version,
            $"amqpconformance.cli.{feed.Version}.nupkg"
        );
        Assert.True(File.Exists(installed), $"no {installed} after install");
        Assert.Equal(Sha512(feed.PackagePath("AmqpConformance.Cli")), Sha512(installed));

        string tool = Path.Combine(toolPath, OperatingSystem.IsWindows() ? "amqp-conformance.exe" : "amqp-conformance");
        Assert.True(File.Exists(tool), $"no {tool} after install");
        var environment = new Dictionary<string, string?>();
        if (Path.GetDirectoryName(ProcessRun.DotnetHost) is { Length: > 0 } dotnetRoot)
            environment["DOTNET_ROOT"] = dotnetRoot;
        ProcessResult help = await ProcessRun.RunAsync(tool, ["--help"], work, TimeSpan.FromMinutes(2), environment);
        output.WriteLine(help.Output);
        Assert.True(help.ExitCode == 0, $"amqp-conformance --help exited {help.ExitCode}:\n{help.Output}");
        foreach (string command in new[] { "broker", "proxy", "run" })
        {
            Assert.True(
                Regex.IsMatch(help.Output, $@"^\s+{command}\b", RegexOptions.Multiline),
                $"'{command}' is not listed as a command in:\n{help.Output}"
            );
        }
    }

    private static string Sha512(string path)
    {
        using FileStream stream = File.OpenRead(path);
        return Convert.ToHexString(SHA512.HashData(stream));
    }
}
