using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties;
using Spectre.Console;

namespace AmqpConformance.Cli;

/// <summary>What a run produced: each finished property's outcome (by writer and property), and whether it was
/// interrupted.</summary>
internal sealed record RunResults(
    IReadOnlyDictionary<(string Writer, string Property), PropertyOutcome> Outcomes,
    bool Interrupted
);

/// <summary>Runs the selected properties against each writer, one after another, with a progress bar, writing each
/// failure's artifacts (a writer that crashes the process gets its crash report there: <see cref="CasesInFlight"/>). A
/// termination signal stops it at once: the property in progress is abandoned (its worker is told to stop starting
/// cases) and the run returns what had finished, marked interrupted.</summary>
internal sealed class RunSession(
    IReadOnlyList<FrameWriterFactory> factories,
    IReadOnlyList<string> properties,
    int cases,
    ReplayToken? replay,
    string reportRoot,
    IReadOnlyList<string> writerSpecs
)
{
    /// <summary>The run's seed (<see cref="PropertyRunOptions.Seed"/>); null: a fresh start per property.</summary>
    public ulong? Seed { get; init; }

    /// <summary>The slice of every property's cases this run makes (<see cref="PropertyRunOptions.Shard"/>); null:
    /// all.</summary>
    public CaseShard? Shard { get; init; }

    public async Task<RunResults> RunAsync(TextWriter output, CancellationToken cancellationToken)
    {
        var outcomes = new Dictionary<(string, string), PropertyOutcome>();
        var console = ConsoleStyle.For(output);
        bool interrupted = false;
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var interruption = Task.Delay(Timeout.Infinite, cancellationToken);
        await console
            .Progress()
            .AutoClear(false)
            .Columns(
                new TaskDescriptionColumn(),
                new ProgressBarColumn(),
                new PercentageColumn(),
                new ElapsedTimeColumn()
            )
            .StartAsync(async progress =>
            {
                foreach (var factory in factories)
                {
                    int perProperty = replay is null ? cases : 1;
                    var task = progress.AddTask(
                        Markup.Escape(factory.Name),
                        maxValue: (double)properties.Count * perProperty
                    );
                    int done = 0;
                    foreach (string property in properties)
                    {
                        if (cancellationToken.IsCancellationRequested)
                        {
                            interrupted = true;
                            return;
                        }
                        int before = done;
                        var options = new PropertyRunOptions
                        {
                            MaxTest = cases,
                            Replay = replay,
                            Cancellation = stop.Token,
                            Seed = Seed,
                            Shard = Shard,
                            OnCase = n => task.Value = before + n,
                            ReportFolder = ConformanceArtifacts.FolderFor(factory.Name, property, reportRoot), // a crash's report goes there
                            ReplayHint = token => ReplayHint(factory, property, token),
                        };
                        // On the check's own thread (FsCheck is synchronous): nothing here blocks.
                        var check = ConformanceProperties.CheckAsync(factory, property, options);
                        if (await Task.WhenAny(check, interruption).ConfigureAwait(false) != check)
                        {
                            interrupted = true;
                            return; // the worker stops at its next case; the process is about to exit anyway
                        }
                        var outcome = await check.ConfigureAwait(false);
                        if (outcome.Interrupted)
                        {
                            interrupted = true;
                            return;
                        }
                        done += perProperty;
                        task.Value = done;
                        outcomes[(factory.Name, property)] = OutcomeArtifacts.Write(outcome, options);
                    }
                }
            })
            .ConfigureAwait(false);
        return new RunResults(outcomes, interrupted);
    }

    /// <summary>The command line that replays <paramref name="outcome"/>'s failure.</summary>
    public string ReplayHint(FrameWriterFactory factory, PropertyOutcome outcome) =>
        ReplayHint(factory, outcome.Invariant, outcome.Replay);

    /// <summary>The command that replays <paramref name="outcome"/>'s failure, without the "paste:" of
    /// <see cref="ReplayHint(FrameWriterFactory, PropertyOutcome)"/> (the JSON's <c>replayCommand</c>).</summary>
    public string ReplayCommand(FrameWriterFactory factory, PropertyOutcome outcome) =>
        ReplayCommand(factory, outcome.Invariant, outcome.Replay);

    private string ReplayHint(FrameWriterFactory factory, string property, ReplayToken? token) =>
        $"paste: {ReplayCommand(factory, property, token)}";

    private string ReplayCommand(FrameWriterFactory factory, string property, ReplayToken? token) =>
        $"amqp-conformance run --writer {WriterArgument(factory)} --invariant {property} --replay {token}";

    private string WriterArgument(FrameWriterFactory factory) =>
        writerSpecs.FirstOrDefault(s => WriterModes.FromName(s) == factory)
        ?? writerSpecs.FirstOrDefault(s => s.Contains(':', StringComparison.Ordinal))
        ?? factory.Name;
}
