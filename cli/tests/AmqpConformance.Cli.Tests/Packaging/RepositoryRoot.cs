using System.Runtime.CompilerServices;

namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>Finds the repository root: the nearest folder holding AmqpConformance.sln.</summary>
public static class RepositoryRoot
{
    /// <summary>
    /// Looks upward from <c>AMQPC_REPO_ROOT</c> (when set), the current directory, this test's output folder, and this
    /// source file's folder (build outputs may live outside the tree when AMQPC_ARTIFACTS is set).
    /// </summary>
    public static string Find([CallerFilePath] string sourceFile = "")
    {
        string?[] starts =
        [
            Environment.GetEnvironmentVariable("AMQPC_REPO_ROOT"),
            Environment.CurrentDirectory,
            AppContext.BaseDirectory,
            Path.GetDirectoryName(sourceFile),
        ];
        foreach (string? start in starts)
        {
            for (
                var dir = start is { Length: > 0 } && Directory.Exists(start) ? new DirectoryInfo(start) : null;
                dir is not null;
                dir = dir.Parent
            )
            {
                if (File.Exists(Path.Combine(dir.FullName, "AmqpConformance.sln")))
                    return dir.FullName;
            }
        }
        throw new InvalidOperationException(
            "AmqpConformance.sln not found above the current directory, the test output or the source; set AMQPC_REPO_ROOT."
        );
    }
}
