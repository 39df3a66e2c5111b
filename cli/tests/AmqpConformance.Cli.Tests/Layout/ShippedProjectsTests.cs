using AmqpConformance.Cli.Tests.Packaging;

namespace AmqpConformance.Cli.Tests.Layout;

/// <summary>Which projects ship (and so also target net8.0) is decided by their folder inside the repository, not by
/// the clone's absolute path: a clone under a folder named <c>src</c> (<c>~/src/amqp-conformance</c>) once made every
/// test project target net8.0 too, and <c>dotnet pack</c> failed with NU1201.</summary>
public sealed class ShippedProjectsTests : IDisposable
{
    private readonly string _parent = Path.Combine(
        Path.GetTempPath(),
        "amqpc-layout-" + Guid.NewGuid().ToString("N"),
        "src"
    );

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path.GetDirectoryName(_parent)!, recursive: true);
        }
        catch (IOException) { } // a temp folder still in use: the OS cleans its temp folder, and the test has its verdict
    }

    [Theory]
    [InlineData("cli/tests/AmqpConformance.Cli.Tests/AmqpConformance.Cli.Tests.csproj", "", "net10.0")]
    [InlineData("cli/src/AmqpConformance.Cli/AmqpConformance.Cli.csproj", "", "net10.0")]
    [InlineData("harness/src/AmqpConformance.Harness/AmqpConformance.Harness.csproj", "true", "")]
    public async Task A_projects_kind_is_the_same_in_a_clone_under_a_folder_named_src(
        string project,
        string shipped,
        string framework
    )
    {
        // The repository as a clone at <temp>/src/amqp-conformance would be: a link keeps the path MSBuild sees.
        Directory.CreateDirectory(_parent);
        string clone = Path.Combine(_parent, "amqp-conformance");
        Directory.CreateSymbolicLink(clone, RepositoryRoot.Find());
        var result = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            [
                "msbuild",
                Path.Combine(clone, project),
                "-getProperty:IsShippedLibrary",
                "-getProperty:TargetFramework",
                "-getProperty:TargetFrameworks",
            ],
            clone,
            TimeSpan.FromMinutes(3)
        );
        Assert.True(result.ExitCode == 0, result.Output);
        using var json = System.Text.Json.JsonDocument.Parse(
            result.Output[result.Output.IndexOf('{', StringComparison.Ordinal)..]
        );
        var properties = json.RootElement.GetProperty("Properties");
        Assert.Equal(shipped, properties.GetProperty("IsShippedLibrary").GetString());
        Assert.Equal(framework, properties.GetProperty("TargetFramework").GetString());
        Assert.Equal(shipped == "true" ? "net8.0;net10.0" : "", properties.GetProperty("TargetFrameworks").GetString());
    }
}
