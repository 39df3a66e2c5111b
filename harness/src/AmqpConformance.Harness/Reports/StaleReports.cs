using System.Collections.Concurrent;

namespace AmqpConformance.Harness.Reports;

/// <summary>
/// Clears the reports an earlier run left behind, so that the reports root only ever shows failures of the run that
/// wrote it. "A run" is one suite in one process: the first time a process starts a property of suite <c>S</c>, the
/// folder <c>&lt;root&gt;/S/</c> is deleted; later properties of <c>S</c> in the same process (and other suites) leave
/// it alone, so a failure written earlier in the run is never lost.
/// </summary>
/// <remarks>
/// Why per suite and not the whole root: one <c>dotnet test</c> of a solution runs each test assembly in its own
/// process, possibly at the same time and with the same root, so a process may only clear what it is about to rewrite.
/// Folders of suites a run does not touch stay as they were. One limit follows: two processes that run the same suite
/// at the same time into the same root (a test project built for two target frameworks) clear each other's reports;
/// give each its own <c>AMQP_CONFORMANCE_REPORTS</c> there.
/// </remarks>
public static class StaleReports
{
    private static readonly ConcurrentDictionary<string, Lazy<bool>> Cleared = new(StringComparer.Ordinal);

    /// <summary>Deletes <c>&lt;root&gt;/&lt;suite&gt;/</c> the first time this process calls it for that folder; does
    /// nothing after that. Returns true for the call that cleared it. Never throws for I/O trouble (a report folder
    /// still open in a viewer must not fail the test): what could not be deleted stays.</summary>
    /// <param name="suite">The suite (or CLI writer) name: the first folder level under the root.</param>
    /// <param name="root">The reports root; <see cref="ConformanceArtifacts.DefaultRoot"/> when null.</param>
    public static bool ClearOnce(string suite, string? root = null)
    {
        ArgumentNullException.ThrowIfNull(suite);
        string folder = Path.GetFullPath(Path.GetDirectoryName(ConformanceArtifacts.FolderFor(suite, "_", root))!);
        bool mine = false;
        // Exactly one Lazy per folder is kept and its factory runs once; a concurrent caller waits for the delete to
        // finish.
        Lazy<bool> clear = Cleared.GetOrAdd(folder, f => new Lazy<bool>(
            () => mine = Delete(f),
            LazyThreadSafetyMode.ExecutionAndPublication
        ));
        _ = clear.Value;
        return mine;
    }

    private static bool Delete(string folder)
    {
        try
        {
            if (Directory.Exists(folder))
                Directory.Delete(folder, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Best effort: a stale report that survives is marked by its timestamps, and the new one overwrites its
            // files.
        }
        return true;
    }
}
