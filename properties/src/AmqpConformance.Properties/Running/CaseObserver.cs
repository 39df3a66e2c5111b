using System.Diagnostics;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Watches a case between the harness's own steps: waits for the writer to settle, checks that completed calls became
/// visible, samples what the writer holds while its output is stalled, and counts the events it sees
/// (<see cref="RunEvent"/>).
/// </summary>
internal sealed class CaseObserver(WriterCase world)
{
    private const int QuietRounds = 4;
    private readonly List<VisibilityLapse> _lapses = [];
    private readonly HashSet<int> _lapsed = [];
    private long _peakBytesHeld;
    private int _peakAccepted;
    private IReadOnlyList<int> _peakAcceptedCalls = [];
    private bool _sampledStall;

    /// <summary>Visibility lapses found so far.</summary>
    public IReadOnlyList<VisibilityLapse> Lapses => _lapses;

    /// <summary>Waits until the writer stops moving: nothing changed on its output, its calls or its pool over a few
    /// rounds through the thread pool's global queue (so work the writer queued before has run), and it is not in the
    /// middle of writing (memory taken, not yet committed: a thread descheduled there), bounded by
    /// <see cref="WriterRunOptions.SettleLimit"/>. Returns whether the writer settled; a settle that timed out (false)
    /// only makes the next step come earlier, and no verdict depends on it, but the harness must not take such a writer
    /// for one waiting on its timers (<see cref="CaseLifecycle"/>).</summary>
    public async Task<bool> SettleAsync()
    {
        var limit = Stopwatch.StartNew();
        var trip = new ThreadPoolRoundTrip();
        long last = -1;
        int quiet = 0;
        while (
            (quiet < QuietRounds || limit.Elapsed < world.Options.SettleFloor)
            && limit.Elapsed < world.Options.SettleLimit
        )
        {
            long now = Activity();
            if (now == last && !world.Output.IsWriting)
                quiet++;
            else
            {
                quiet = 0;
                last = now;
            }
            await trip;
        }
        SampleStall();
        return quiet >= QuietRounds;
    }

    /// <summary>Takes trips through the thread pool until <paramref name="wait"/> of the case's clock has passed since
    /// <paramref name="since"/>, then settles: a moment for a writer to finish reacting to something it just met
    /// (unwinding an exception is slow next to a trip), spent where a sleep could not be this short. Returns at once if
    /// the moment has passed.</summary>
    public async Task LetWriterReactAsync(TimeSpan since, TimeSpan wait)
    {
        if (world.Clock - since >= wait)
            return;
        var trip = new ThreadPoolRoundTrip();
        while (world.Clock - since < wait)
            await trip;
        await SettleAsync().ConfigureAwait(false);
    }

    /// <summary>How often a visibility wait looks again whether the bytes can still go out.</summary>
    private static readonly TimeSpan VisibilityPoll = TimeSpan.FromMilliseconds(50);

    /// <summary>Checks that every call that completed successfully has its bytes flushed, waiting for the writer to
    /// flush on its own for as long as it keeps working, and up to <see cref="WriterRunOptions.VisibilityBound"/> of
    /// idleness (no touch of its output) after that. Skipped while the output is held or faulted (the bytes cannot go
    /// out then). Records a lapse for the calls still unflushed when the writer went idle for the whole
    /// bound.</summary>
    public async Task CheckVisibilityAsync(string point)
    {
        // A case with a lapse has failed visibility already: waiting out the bound again at each later point would only
        // cost time.
        if (!CanJudgeVisibility() || _lapses.Count > 0)
            return;
        var missing = Unflushed();
        if (missing.Count == 0)
            return;
        // Idleness counts time in which the process could run (SchedulingLag): a writer whose timer thread a loaded
        // machine kept off the CPU is not idle by choice.
        var lag = SchedulingLag.Process;
        var idle = RunnableStopwatch.StartNew(lag);
        var total = Stopwatch.StartNew();
        long activity = world.Output.Activity;
        TimeSpan Idle() => idle.Elapsed;
        while (missing.Count > 0 && total.Elapsed < world.Options.CallTimeout * 6)
        {
            if (Idle() >= world.Options.IdleBound)
            {
                // Let the meter see the time up to now before judging: the process may just have come back.
                await lag.NextTickAsync()
                    .WaitAsync(TimeSpan.FromSeconds(1))
                    .ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                if (Idle() >= world.Options.IdleBound)
                    break;
            }
            var changed = world.Output.WhenChanged;
            missing = Unflushed();
            if (missing.Count == 0)
                break;
            // A transport fault the idle writer has not met yet ends the wait too: the bytes cannot go out then. So
            // does the broker closing the connection, which signals nothing here: the wait looks again every 50 ms.
            var poll = world.Options.IdleBound - Idle();
            if (poll > VisibilityPoll)
                poll = VisibilityPoll;
            await BoundedWait
                .CompletesWithinAsync(
                    Task.WhenAny(changed, world.Transport.Completion, world.Connection.Completion),
                    poll
                )
                .ConfigureAwait(false);
            if (!CanJudgeVisibility())
                return;
            if (world.Output.Activity != activity)
            {
                activity = world.Output.Activity;
                idle.Restart();
            }
            missing = Unflushed();
        }
        if (missing.Count == 0)
            return;
        _lapses.Add(new VisibilityLapse(world.Clock, world.Options.IdleBound, missing, point));
        _lapsed.UnionWith(missing);
    }

    /// <summary>Notes a call that just started: counts it parked behind a stalled output (queue full) once it
    /// settled.</summary>
    public void NoteStarted(CallTrace trace)
    {
        if (trace.IsPending && !world.Output.HasStarted(trace.Id) && world.Output.IsFlushPending)
            world.Events.Add(RunEvent.QueueFull);
    }

    /// <summary>What the writer held while its output was stalled; null when the output never stalled with calls in
    /// flight.</summary>
    public BackpressureSample? Backpressure()
    {
        if (!_sampledStall)
            return null;
        var s = world.Scenario;
        long maxCommand = s
            .Publishers.SelectMany(p => p)
            .Select(x => 512L + x.HeaderBytes + FrameFormat.BodyFramesWireLength(x.BodyLength, s.FrameMax))
            .DefaultIfEmpty(512)
            .Max();
        int slots = s.QueueCapacity + 1 + s.Publishers.Count;
        // One frame_max-sized buffer per connection is bounded memory a writer may hold for good (a scratch it
        // assembles frames in): without it, a correct writer that keeps one would be over the bound whenever the case's
        // commands are small. It counts as the pool hands it out, rounded up to a power of two. At frame_max 0 a frame
        // is a whole body, which maxCommand already covers.
        long frameBuffer =
            s.FrameMax == 0 ? 0 : (long)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)s.FrameMax);
        long bound = 2 * slots * maxCommand + 2L * s.OutputThreshold + frameBuffer + 64 * 1024;
        return new BackpressureSample(
            _peakBytesHeld,
            bound,
            $"2 x ({s.QueueCapacity} queued + 1 in hand + {s.Publishers.Count} in-flight commands) x {maxCommand} bytes + 2 x the {s.OutputThreshold}-byte output threshold + one {frameBuffer}-byte frame buffer + 64 KiB"
        )
        {
            PeakAcceptedUnflushed = _peakAccepted,
            AcceptedBound = s.QueueCapacity + 1,
            AcceptedCalls = _peakAcceptedCalls,
        };
    }

    /// <summary>Samples the writer's holdings if the output is stalled (a flush pending) with calls in flight, or
    /// always when <paramref name="stalled"/> says the transport is stalled on purpose.</summary>
    public void SampleStall(bool stalled = false)
    {
        var traces = world.AllTraces.ToList();
        if (
            !stalled
            && (!world.Output.IsFlushPending || (!traces.Any(t => t.IsPending) && world.Output.HeldFlushes == 0))
        )
            return;
        if (!_sampledStall)
            world.Events.Add(RunEvent.StallDuringFlush);
        _sampledStall = true;
        long held =
            world.WriterPool.Outstanding.Sum(r => (long)r.Size)
            + world.Transport.UpstreamBacklogBytes
            + (world.Output.CanGetUnflushedBytes ? world.Output.UnflushedBytes : 0);
        _peakBytesHeld = Math.Max(_peakBytesHeld, held);
        var accepted = world
            .Output.NotVisible(traces.Where(t => t.Done.IsCompleted && t.Outcome == CallOutcome.Succeeded))
            .Select(t => t.Id)
            .ToList();
        if (accepted.Count > _peakAccepted)
        {
            _peakAccepted = accepted.Count;
            _peakAcceptedCalls = accepted;
        }
    }

    /// <summary>Whether completed calls' bytes can go out now: not while the output is held or faulted, the transport
    /// or the connection ended, the broker is closing the connection (after a protocol error it reads nothing but
    /// close-ok, as RabbitMQ; the case fails on that error already, and waiting out the idle bound there cost every
    /// such case 3 s), or the writer gave up on an output the harness kept stalled through disposal (that give-up
    /// counts as a fault: a writer that completes calls on enqueue drops them then, and the bytes can never go
    /// out).</summary>
    private bool CanJudgeVisibility() =>
        !world.Output.IsHolding
        && world.Output.FaultObservedAt is null
        && world.Transport.Termination is null
        && !world.Transport.Completion.IsCompleted
        && !world.Connection.Completion.IsCompleted
        && world.Connection.CloseInfo is null
        && !(world.StallsThroughDispose && world.Output.FlushCancelledAt is not null)
        // Once disposal returned, nothing may go out any more: a completed call still unflushed was dropped, which the
        // order invariant judges (with its excuses for a writer that gave up draining through no fault of its own).
        && world.Lifecycle is not { HasReturned: true };

    private List<int> Unflushed() =>
        [
            .. world
                .Output.NotVisible(world.AllTraces.Where(t => t.Done.IsCompleted && t.Outcome == CallOutcome.Succeeded))
                .Where(t => !_lapsed.Contains(t.Id))
                .Select(t => t.Id),
        ];

    private long Activity() =>
        world.Output.Activity
        + world.Completions
        + world.WriterPool.Rents
        + world.WriterPool.Returns
        + world.CallerPool.Returns;
}
