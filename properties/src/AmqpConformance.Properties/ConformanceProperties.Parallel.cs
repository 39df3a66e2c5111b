using System.Diagnostics;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using FsCheck;

namespace AmqpConformance.Properties;

public static partial class ConformanceProperties
{
    /// <summary>How many workers a writer-level check with <paramref name="options"/> runs on: 1 for a replay, else
    /// <see cref="PropertyRunOptions.Parallel"/>, at most one per case of the run (of its shard, when it has
    /// one).</summary>
    private static int WorkersFor(PropertyRunOptions options)
    {
        if (options.Replay is not null || options.Parallel <= 1)
            return 1;
        var whole = options.Shard ?? new CaseShard(1, 1);
        return Math.Max(1, Math.Min(options.Parallel, whole.CasesThrough(options.MaxTest - 1)));
    }

    /// <summary>
    /// A writer-level check on <paramref name="workers"/> workers (<see cref="PropertyRunOptions.Parallel"/>): the
    /// run's cases, with one seed (the options' or one drawn here), cut into that many shards
    /// (<see cref="CaseShard.Split"/> of the options' shard, or of the whole run), each checked by
    /// <see cref="CheckCore"/> on a thread of its own, coordinated by one <see cref="ParallelWorkers"/>; completes with
    /// the outcome a check on one worker with that seed reports (<see cref="Combine"/>).
    /// </summary>
    private static Task<PropertyOutcome> CheckOnWorkers(
        string subject,
        object identity,
        string invariant,
        PropertyRunOptions options,
        Func<Scenario, bool, ShrinkNotes?, Task<RunResult>> runAsync,
        Arbitrary<Scenario>? arbitrary,
        int workers
    )
    {
        ulong seed = options.Seed ?? (ulong)Random.Shared.NextInt64(long.MinValue, long.MaxValue);
        var whole = options.Shard ?? new CaseShard(1, 1);
        var parts = whole.Split(workers);
        // Read once, before any worker starts: every worker judges as the one worker of a sequential run would.
        string? shrunkElsewhere = options.ShrinkOncePerWriter ? ShrunkFailures.Of(identity) : null;
        var coordinator = new ParallelWorkers(workers, options.MaxTest, options.OnCase);
        var clock = Stopwatch.StartNew();
        var slots = new List<WorkerSlot>();
        var checks = new List<Task<PropertyOutcome>>();
        for (int i = 0; i < workers; i++)
        {
            var slot = new WorkerSlot(
                coordinator,
                i,
                parts[i],
                new ShrinkNotes(identity, deferred: true),
                shrunkElsewhere
            );
            var workerOptions = options with { Seed = seed, Shard = slot.Shard };
            slots.Add(slot);
            checks.Add(OnOwnThread($"AmqpConformance check: {invariant} ({slot.Shard})", () =>
                {
                    try
                    {
                        return CheckCore(
                            subject,
                            identity,
                            invariant,
                            workerOptions,
                            (scenario, candidate, notes) =>
                                runAsync(scenario, candidate, notes).GetAwaiter().GetResult(),
                            arbitrary,
                            slot
                        );
                    }
                    finally
                    {
                        coordinator.Ended(slot.Index);
                    }
                }));
        }
        return Combine(checks, slots, whole, coordinator, clock, seed);
    }

    /// <summary>The outcome of a check on several workers, once every worker has ended: when some failed, the failure
    /// of the lowest case index in the run (<see cref="ShardMerge"/>, the rule <c>amqp-conformance merge</c> uses),
    /// with the cases, events and accepted deviations a run on one worker counts up to it, and only that worker's
    /// shrink made the process's (<see cref="ShrinkNotes.Commit"/>); when all held, every worker's cases, events and
    /// deviations added up. <see cref="PropertyOutcome.Elapsed"/> is the check's wall time.</summary>
    private static async Task<PropertyOutcome> Combine(
        List<Task<PropertyOutcome>> checks,
        List<WorkerSlot> slots,
        CaseShard whole,
        ParallelWorkers coordinator,
        Stopwatch clock,
        ulong seed
    )
    {
        var outcomes = await Task.WhenAll(checks).ConfigureAwait(false);
        var elapsed = clock.Elapsed;
        bool interrupted = outcomes.Any(o => o.Interrupted);
        var failed = ShardMerge.InRunOrder(Enumerable.Range(0, outcomes.Length).Where(i => !outcomes[i].Holds), i =>
            ShardMerge.FailingCase(slots[i].Shard, outcomes[i].CasesRun)
        );
        PropertyOutcome combined;
        if (failed.Count == 0)
        {
            var events = new RunEvents();
            var known = new Dictionary<string, int>();
            foreach (var outcome in outcomes)
            {
                events.Add(outcome.Events);
                ParallelWorkers.AddTo(known, outcome.KnownDeviationsSeen);
            }
            combined = outcomes[0] with
            {
                CasesRun = outcomes.Sum(o => o.CasesRun),
                Events = events,
                KnownDeviationsSeen = known,
            };
        }
        else
        {
            int winner = failed[0];
            int index = ShardMerge.FailingCase(slots[winner].Shard, outcomes[winner].CasesRun);
            slots[winner].Notes.Commit();
            var known = coordinator.KnownThrough(index);
            ParallelWorkers.AddTo(known, slots[winner].KnownAfterFailure);
            combined = outcomes[winner] with
            {
                CasesRun = whole.CasesThrough(index),
                Events = coordinator.EventsThrough(index),
                KnownDeviationsSeen = known,
            };
        }
        return combined with { Elapsed = elapsed, Interrupted = interrupted, Seed = seed, Workers = slots.Count };
    }
}

/// <summary>One worker of a check on several (<see cref="PropertyRunOptions.Parallel"/>): its coordinator, its index
/// there, its shard of the run, what it notes of the writer's failures (kept until its failure is chosen), and what the
/// check read of them before any worker started.</summary>
internal sealed class WorkerSlot(
    ParallelWorkers workers,
    int index,
    CaseShard shard,
    ShrinkNotes notes,
    string? shrunkElsewhere
)
{
    public ParallelWorkers Workers { get; } = workers;

    public int Index { get; } = index;

    public CaseShard Shard { get; } = shard;

    public ShrinkNotes Notes { get; } = notes;

    /// <summary><see cref="ShrunkFailures.Of"/> as read when the check started.</summary>
    public string? ShrunkElsewhere { get; } = shrunkElsewhere;

    /// <summary>The deviations the worker's shrink candidates and confirming runs accepted (set when its check
    /// ends).</summary>
    public IReadOnlyDictionary<string, int> KnownAfterFailure { get; set; } = new Dictionary<string, int>();
}
