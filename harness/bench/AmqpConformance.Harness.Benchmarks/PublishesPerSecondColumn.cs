using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>A summary column with publishes per second, derived from the Mean (which is per publish, since the
/// benchmarks set OperationsPerInvoke): 10^9 / Mean in ns.</summary>
internal sealed class PublishesPerSecondColumn : IColumn
{
    public static PublishesPerSecondColumn Instance { get; } = new();

    public string Id => nameof(PublishesPerSecondColumn);
    public string ColumnName => "msgs/s";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Statistics;
    public int PriorityInCategory => 100;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => "Publishes per second: 10^9 / Mean (ns per publish)";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
        GetValue(summary, benchmarkCase, SummaryStyle.Default);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        double? meanNs = summary[benchmarkCase]?.ResultStatistics?.Mean;
        return meanNs is > 0 ? (1e9 / meanNs.Value).ToString("N0", CultureInfo.InvariantCulture) : "NA";
    }

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public bool IsAvailable(Summary summary) => true;
}
