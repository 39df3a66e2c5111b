using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using FsCheck;

namespace AmqpConformance.Properties;

public static partial class ConformanceProperties
{
    /// <summary>
    /// The one sync boundary of a property check, at writer level and client level alike: runs FsCheck's check
    /// (<see cref="CheckCore"/>) on a thread of its own and, on that thread, waits for each case's async run
    /// (<paramref name="runAsync"/>: <see cref="WriterLevelRunner.RunAsync"/>,
    /// <see cref="Clients.ClientLevelRunner.RunAsync"/>), blocking it. Completes with the check's outcome, or with what
    /// the check threw.
    /// </summary>
    /// <remarks>
    /// <para>Why it blocks: FsCheck's property runner is synchronous. It calls the property for one case and needs its
    /// answer before it generates the next case or shrinks, and it takes no async property. So an async case has to be
    /// waited for where FsCheck calls it.</para>
    /// <para>Why that is safe: the thread is made here for the check alone. It has no synchronization context and no
    /// task scheduler of a caller's (a test framework's, a UI's), so whatever the case awaits, in the harness or in the
    /// writer's or client's code, resumes on the thread pool and never needs the blocked thread: the wait cannot
    /// deadlock. It is not a thread-pool thread, so a check that runs for minutes takes none of the threads its cases
    /// run on. It is a background thread, so a run that is interrupted (the CLI on Ctrl+C) does not wait for it.</para>
    /// <para>Nothing else in a check blocks on async code: callers that can await take the returned task
    /// (<see cref="CheckAsync(Harness.Writers.FrameWriterFactory, string, PropertyRunOptions?)"/>,
    /// <see cref="CheckAsync(Clients.ClientAdapter, Clients.ClientLevelRunner, string, PropertyRunOptions?)"/>), and a
    /// synchronous one (<see cref="Check(Harness.Writers.FrameWriterFactory, string, PropertyRunOptions?)"/>) waits
    /// for it, which waits for this thread alone.</para>
    /// <para>With <paramref name="parallel"/> (the run can take cases side by side) and
    /// <see cref="PropertyRunOptions.Parallel"/> above 1, the check runs on several such threads instead, one per
    /// worker (<see cref="CheckOnWorkers"/>).</para>
    /// </remarks>
    /// <exception cref="ArgumentException">Unknown invariant (thrown at once, on the caller's thread).</exception>
    private static Task<PropertyOutcome> CheckOnOwnThread(
        string subject,
        object? identity,
        string invariant,
        PropertyRunOptions options,
        Func<Scenario, bool, ShrinkNotes?, Task<RunResult>> runAsync,
        Arbitrary<Scenario>? arbitrary,
        bool parallel
    )
    {
        RequireKnown(invariant);
        int workers = parallel && identity is not null ? WorkersFor(options) : 1;
        if (workers > 1)
            return CheckOnWorkers(subject, identity!, invariant, options, runAsync, arbitrary, workers);
        return OnOwnThread($"AmqpConformance check: {invariant}", () =>
            CheckCore(
                subject,
                identity,
                invariant,
                options,
                (scenario, candidate, notes) => runAsync(scenario, candidate, notes).GetAwaiter().GetResult(),
                arbitrary,
                worker: null
            )
        );
    }

    /// <summary>Runs <paramref name="check"/> on a background thread made for it alone (no synchronization context,
    /// not the thread pool's; see <see cref="CheckOnOwnThread"/>); completes with its result, or with what it
    /// threw.</summary>
    private static Task<T> OnOwnThread<T>(string name, Func<T> check)
    {
        var outcome = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                outcome.SetResult(check());
            }
            catch (Exception ex)
            {
                outcome.SetException(ex); // handed to the caller, who awaits the check
            }
        })
        {
            IsBackground = true,
            Name = name,
        };
        thread.Start();
        return outcome.Task;
    }

    /// <summary>Throws for a property name that is neither an invariant's nor <see cref="AllAtOnce"/>.</summary>
    /// <exception cref="ArgumentException">Unknown invariant.</exception>
    private static void RequireKnown(string invariant)
    {
        if (invariant != AllAtOnce && !InvariantNames.All.Contains(invariant))
            throw new ArgumentException(
                $"Unknown invariant \"{invariant}\"; known: {string.Join(", ", InvariantNames.All)} (or \"{AllAtOnce}\").",
                nameof(invariant)
            );
    }
}
