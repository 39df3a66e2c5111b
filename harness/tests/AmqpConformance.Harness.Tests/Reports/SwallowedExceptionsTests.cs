using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Tests.Verdicts;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Harness.Tests.Reports;

/// <summary>What the harness caught and set aside is kept (the latest <see cref="SwallowedExceptions.Capacity"/>) and
/// shown in every failure report's summary. Alone in the process: the record is process-wide, and other tests' closing
/// connections record into it too.</summary>
[Collection(SwallowedExceptionsCollection.Name)]
public sealed class SwallowedExceptionsTests : IDisposable
{
    private readonly string _folder = Path.Combine(
        Path.GetTempPath(),
        "amqpc-swallowed-" + Guid.NewGuid().ToString("N")
    );

    public void Dispose()
    {
        try
        {
            Directory.Delete(_folder, recursive: true);
        }
        catch (IOException) { } // a test's scratch folder
    }

    [Fact]
    public void A_recorded_exception_is_kept_and_listed_in_the_reports_summary()
    {
        string marker = "marker-" + Guid.NewGuid().ToString("N");
        long before = SwallowedExceptions.Count;
        SwallowedExceptions.Record("closing the connection: waiting for the read loop", new TimeoutException(marker));

        Assert.True(SwallowedExceptions.Count > before);
        Assert.Contains(SwallowedExceptions.Recent(), x => x.Message == marker && x.Type == nameof(TimeoutException));
        string folder = ConformanceArtifacts.Write(
            _folder,
            "title",
            "the failure",
            AmqpConformance.Harness.Verdicts.Judgement.Of(new WireLogBuilder().Evidence()),
            new FrameLog(),
            []
        );
        string summary = File.ReadAllText(Path.Combine(folder, "summary.txt"));
        Assert.StartsWith("the failure", summary, StringComparison.Ordinal);
        Assert.Contains(
            $"closing the connection: waiting for the read loop: TimeoutException: {marker}",
            summary,
            StringComparison.Ordinal
        );
    }

    [Fact]
    public void Only_the_latest_are_kept()
    {
        for (int i = 0; i < SwallowedExceptions.Capacity + 5; i++)
            SwallowedExceptions.Record("filling", new InvalidOperationException("n" + i));
        var recent = SwallowedExceptions.Recent();
        Assert.True(recent.Count <= SwallowedExceptions.Capacity);
        Assert.Equal(3, SwallowedExceptions.Recent(3).Count);
    }
}

/// <summary>Runs its tests with no other test of the assembly in parallel.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class SwallowedExceptionsCollection
{
    /// <summary>The collection's name.</summary>
    public const string Name = "Swallowed exceptions (alone)";
}
