using AmqpConformance.Harness.Reports;

namespace AmqpConformance.Harness.Tests.Reports;

public sealed class StaleReportsTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("amqpc-stale-").FullName;

    public void Dispose() => Directory.Delete(_root, recursive: true);

    private string WriteReport(string suite, string invariant)
    {
        string folder = ConformanceArtifacts.FolderFor(suite, invariant, _root);
        Directory.CreateDirectory(folder);
        string summary = Path.Combine(folder, "summary.txt");
        File.WriteAllText(summary, "old failure");
        return summary;
    }

    [Fact]
    public void The_first_start_of_a_suite_in_a_process_clears_its_folder_and_only_its_folder()
    {
        string stale = WriteReport("MySuite", "order");
        string otherSuite = WriteReport("OtherSuite", "order");

        Assert.True(StaleReports.ClearOnce("MySuite", _root));

        Assert.False(File.Exists(stale));
        Assert.True(File.Exists(otherSuite), "another suite's reports (maybe another process's) must stay");
    }

    [Fact]
    public void Later_starts_of_the_same_suite_keep_what_this_run_wrote()
    {
        Assert.True(StaleReports.ClearOnce("Suite2", _root));
        string written = WriteReport("Suite2", "pools"); // a failure of this run, from an earlier property

        Assert.False(StaleReports.ClearOnce("Suite2", _root));
        Assert.True(File.Exists(written));
    }

    [Fact]
    public void Concurrent_starts_clear_exactly_once()
    {
        WriteReport("Suite3", "bodies");
        bool[] cleared = new bool[8];
        Parallel.For(0, cleared.Length, i => cleared[i] = StaleReports.ClearOnce("Suite3", _root));
        Assert.Single(cleared, c => c);
    }
}
