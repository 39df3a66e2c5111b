using System.Diagnostics;

namespace AmqpConformance.Properties.Running;

/// <summary>Runs a free-running scenario: every publisher on its own task, all released at once, each awaiting its
/// calls one after another (a pipelined one makes them all, then awaits them); publishers sharing a channel take turns
/// on it, as a client's channel lock does. For a transport-stalled scenario it samples what the writer holds until the
/// writer stops making progress, then releases the transport.</summary>
internal static class FreeRunDriver
{
    public static async Task RunAsync(WriterCase world, CallLauncher calls, CaseObserver observer)
    {
        var scenario = world.Scenario;
        var channelLocks = Enumerable
            .Range(0, scenario.Publishers.Count)
            .Where(scenario.IsSharedChannel)
            .Select(scenario.ChannelOf)
            .Distinct()
            .ToDictionary(c => c, _ => new SemaphoreSlim(1, 1));
        var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var publishers = new List<Task>();
        for (int p = 0; p < scenario.Publishers.Count; p++)
        {
            var steps = scenario.Publishers[p];
            var traces = world.Traces[p];
            var channelLock = channelLocks.GetValueOrDefault(scenario.ChannelOf(p));
            int publisher = p;
            publishers.Add(
                Task.Run(
                    async () =>
                    {
                        await start.Task.ConfigureAwait(false);
                        if (world.Options.BeforePublisherRuns is { } hold)
                            await hold(publisher).ConfigureAwait(false);
                        if (publisher == 0 && scenario.Pipelined)
                        {
                            await PipelineAsync(world, calls, steps, traces).ConfigureAwait(false);
                            return;
                        }
                        if (publisher == scenario.ContinuingPublisher)
                        {
                            await ContinueAsync(calls, steps, traces).ConfigureAwait(false);
                            return;
                        }
                        for (int i = 0; i < steps.Count; i++)
                        {
                            if (channelLock is not null)
                                await channelLock.WaitAsync().ConfigureAwait(false);
                            try
                            {
                                await calls.Start(traces[i], steps[i]).ConfigureAwait(false);
                            }
                            finally
                            {
                                channelLock?.Release();
                            }
                            if (traces[i].Outcome == Harness.Verdicts.CallOutcome.Pending)
                                break; // hung: this publisher cannot go on
                        }
                    },
                    CancellationToken.None
                )
            );
        }
        var all = Task.WhenAll(publishers);
        await world.MeetOtherConnectionsAsync().ConfigureAwait(false);
        start.SetResult();
        if (scenario.StallUntilQuiet)
        {
            await SampleWhileStalledAsync(world, observer, publishers).ConfigureAwait(false);
            world.Transport.Release();
        }
        await all.ConfigureAwait(false); // every call is bounded by the call timeout
    }

    /// <summary>A pipelined publisher (<see cref="Scenarios.Scenario.Pipelined"/>, always on its own channel): makes
    /// every call as soon as the previous WriteAsync has returned, then awaits them in order.</summary>
    private static async Task PipelineAsync(
        WriterCase world,
        CallLauncher calls,
        IReadOnlyList<Scenarios.CallStep> steps,
        IReadOnlyList<CallTrace> traces
    )
    {
        if (steps.Count > 256)
            world.Events.Add(RunEvent.LongLivedWriter);
        for (int i = 0; i < steps.Count; i++)
            calls.StartDeferred(traces[i], steps[i]);
        if (traces.Count(t => t.IsPending) > 32)
            world.Events.Add(RunEvent.ManyCallsPending);
        for (int i = 0; i < steps.Count; i++)
            await calls.Collect(traces[i]).ConfigureAwait(false);
    }

    /// <summary>A continuing publisher (<see cref="Scenarios.Scenario.ContinuingPublisher"/>, always on its own
    /// channel): each next call is made from the previous call's completion, on the thread that completed it
    /// (<see cref="CallLauncher.StartContinuing"/>); this task only waits for them in order, and stops at a call that
    /// hung (the chain ends there).</summary>
    private static async Task ContinueAsync(
        CallLauncher calls,
        IReadOnlyList<Scenarios.CallStep> steps,
        IReadOnlyList<CallTrace> traces
    )
    {
        calls.StartContinuing(traces, steps);
        for (int i = 0; i < steps.Count; i++)
        {
            await traces[i].Done.ConfigureAwait(false);
            if (traces[i].Outcome == Harness.Verdicts.CallOutcome.Pending)
                break; // hung: its successors are never made
        }
    }

    /// <summary>While the transport is stalled, samples what the writer holds until it stops making progress: then it
    /// is blocked, or done, which is what the backpressure invariant judges. "Stopped" is judged by controlled
    /// scheduling, not a wall-clock quiet period: every publisher is parked (<see cref="AllPublishersParked"/>) and the
    /// writer has settled (<see cref="CaseObserver.SettleAsync"/>: nothing moved over several trips through the thread
    /// pool and no write is half-done) twice in a row with no byte committed and no call completed in between. Bounded
    /// by the call timeout.</summary>
    /// <remarks>Stopping early can only make the sampled peak smaller, so a writer is never blamed for what this wait
    /// decides; a writer that keeps accepting calls keeps completing them, and so keeps the wait going until it has
    /// taken them all. The publishers must be parked too because a settle watches only the writer: a publisher the
    /// scheduler kept off the CPU before its first call moves nothing the settle sees, and stopping then sampled a
    /// writer that had not been given any work yet.</remarks>
    private static async Task SampleWhileStalledAsync(
        WriterCase world,
        CaseObserver observer,
        IReadOnlyList<Task> publishers
    )
    {
        long lastProgress = -1;
        var deadline = Stopwatch.StartNew();
        observer.SampleStall(stalled: true);
        while (deadline.Elapsed < world.Options.CallTimeout)
        {
            await observer.SettleAsync().ConfigureAwait(false);
            // In this order: whether everyone is parked, then the progress count, then the sample. Read the other way
            // round, publishers could start, write and park between a sample and a progress count that missed them, and
            // the loop stopped on a sample of nothing (a stress-ng run caught it). Now a stop means no byte and no
            // completion since the previous progress count, which came before the previous sample: the samples saw the
            // parked state.
            bool parked = AllPublishersParked(world, publishers);
            long progress = world.Output.Committed + world.Completions;
            observer.SampleStall(stalled: true);
            if (parked && progress == lastProgress)
                break;
            lastProgress = progress;
        }
    }

    /// <summary>Whether no publisher can move on its own: each has finished, or it or a publisher sharing its channel
    /// (whose lock it then waits on) has a call in flight that the writer has handed back a task for
    /// (<see cref="CallTrace.IsParked"/>). A publisher between calls, not yet at its first, or still inside
    /// WriteAsync's synchronous part (where a loaded machine can preempt it before it wrote anything), is runnable, not
    /// parked.</summary>
    private static bool AllPublishersParked(WriterCase world, IReadOnlyList<Task> publishers)
    {
        var scenario = world.Scenario;
        for (int p = 0; p < publishers.Count; p++)
        {
            if (publishers[p].IsCompleted)
                continue;
            int channel = scenario.ChannelOf(p);
            bool inCall = false;
            for (int q = 0; q < publishers.Count && !inCall; q++)
                inCall = scenario.ChannelOf(q) == channel && world.Traces[q].Any(t => t.IsParked);
            if (!inCall)
                return false;
        }
        return true;
    }
}
