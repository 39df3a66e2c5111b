namespace AmqpConformance.Cli.Tests;

/// <summary>A folder of one test's own under the temporary folder (not made until the test makes it), deleted with
/// everything in it when disposed. A folder that was never made, or is still in use, is left: the OS cleans its temporary
/// folder, and the test has its verdict.</summary>
internal sealed class ScratchFolder(string prefix) : IDisposable
{
    /// <summary>The folder's path: the prefix and a fresh GUID, under the temporary folder.</summary>
    public string Path { get; } =
        System.IO.Path.Combine(System.IO.Path.GetTempPath(), prefix + Guid.NewGuid().ToString("N"));

    /// <inheritdoc />
    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException) { } // never made, or still in use: the OS cleans its temporary folder, and the test has its verdict
    }
}
