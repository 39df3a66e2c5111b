using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Running;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>The `bdn` entry point: hands the remaining arguments (--filter, --job, --iterationCount, ...) to
/// BenchmarkDotNet's switcher over the <see cref="WriterBenchmarks"/> classes, with a msgs/s column added and one
/// joined summary table. Its artifacts (logs,
/// reports, generated projects) go next to this program's binaries unless --artifacts says otherwise.</summary>
internal static class BdnEntryPoint
{
    public static int Run(string[] args)
    {
        var config = DefaultConfig
            .Instance.AddColumn(PublishesPerSecondColumn.Instance)
            .WithOptions(ConfigOptions.JoinSummary)
            .WithArtifactsPath(Path.Combine(AppContext.BaseDirectory, "BenchmarkDotNet.Artifacts"));
        var summaries = BenchmarkSwitcher
            .FromTypes([typeof(SmallBodyWriterBenchmarks), typeof(LargeBodyWriterBenchmarks)])
            .Run(args, config);
        return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
    }
}
