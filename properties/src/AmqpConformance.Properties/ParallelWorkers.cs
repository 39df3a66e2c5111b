using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties;

/// <summary>
/// The workers of one property check on several (<see cref="PropertyRunOptions.Parallel"/>), each running its own shard
/// of the run's cases on a thread of its own: where each has got to, the lowest failing case so far, what each judged
/// case produced, and the progress callback. It keeps the check's outcome the one a run on one worker reports:
/// <list type="bullet">
/// <item>a worker whose case fails shrinks it only once every case before it has been judged and passed
/// (<see cref="Failed"/>), so the failure it shrinks is the run's first; a worker that learns of an earlier failure
/// does not shrink (its outcome is not the run's);</item>
/// <item>a worker passes untried every case after the lowest failure known (<see cref="Reached"/>): a run on one worker
/// never gets there, and the winner then shrinks nearly alone, as a run on one worker does;</item>
/// <item>the events and accepted deviations of the judged cases are kept by case index, so the outcome counts those of
/// the cases up to the failure, as a run on one worker does (<see cref="EventsThrough"/>).</item>
/// </list>
/// </summary>
/// <remarks>Thread-safe: every worker calls in from its own thread. A worker must call <see cref="Ended"/> when its
/// check ends, however it ends, or the others could wait for it forever.</remarks>
internal sealed class ParallelWorkers
{
    private readonly object _gate = new();
    private readonly object _progressGate = new();

    // Per worker: every case of its shard with an index below this one has been judged (or passed untried).
    private readonly int[] _decidedBelow;
    private readonly RunEvents?[] _events;
    private readonly Dictionary<string, int>?[] _known;
    private readonly Action<int>? _onCase;
    private int _lowestFailure = int.MaxValue;
    private int _judged;

    /// <summary>For <paramref name="workers"/> workers over a run of <paramref name="cases"/> generated cases, telling
    /// <paramref name="onCase"/> (<see cref="PropertyRunOptions.OnCase"/>) how many cases the workers have judged, one
    /// call at a time.</summary>
    public ParallelWorkers(int workers, int cases, Action<int>? onCase)
    {
        _decidedBelow = new int[workers];
        _events = new RunEvents?[cases];
        _known = new Dictionary<string, int>?[cases];
        _onCase = onCase;
    }

    /// <summary>Worker <paramref name="worker"/>'s FsCheck has generated case <paramref name="index"/> (its own or
    /// another shard's): every earlier case of its shard is decided. Returns whether the case is after a known failure,
    /// and so passes untried.</summary>
    public bool Reached(int worker, int index)
    {
        lock (_gate)
        {
            Advance(worker, index);
            return index > _lowestFailure;
        }
    }

    /// <summary>Worker <paramref name="worker"/> judged its case <paramref name="index"/> and it held, producing
    /// <paramref name="events"/> and accepting the deviations <paramref name="known"/>.</summary>
    public void Passed(int worker, int index, RunEvents events, Dictionary<string, int>? known)
    {
        Keep(index, events, known);
        lock (_gate)
            Advance(worker, index + 1);
        Progress();
    }

    /// <summary>Worker <paramref name="worker"/>'s case <paramref name="index"/> failed (or threw). Waits until it is
    /// known whether it is the run's first failure: true once every other worker has judged its cases before
    /// <paramref name="index"/> (they all held), false as soon as another worker failed at an earlier case.</summary>
    public bool Failed(int worker, int index, RunEvents? events, Dictionary<string, int>? known)
    {
        Keep(index, events, known);
        Progress();
        lock (_gate)
        {
            Advance(worker, index + 1);
            _lowestFailure = Math.Min(_lowestFailure, index);
            Monitor.PulseAll(_gate);
            while (true)
            {
                if (_lowestFailure < index)
                    return false;
                bool earlierDecided = true;
                for (int w = 0; w < _decidedBelow.Length; w++)
                    earlierDecided &= w == worker || _decidedBelow[w] > index;
                if (earlierDecided)
                    return true;
                Monitor.Wait(_gate);
            }
        }
    }

    /// <summary>Worker <paramref name="worker"/>'s check ended: it judges nothing more.</summary>
    public void Ended(int worker)
    {
        lock (_gate)
            Advance(worker, int.MaxValue);
    }

    /// <summary>The events of the judged cases up to and including case <paramref name="index"/> (all of them for
    /// <see cref="int.MaxValue"/>). Read once every worker has ended.</summary>
    public RunEvents EventsThrough(int index)
    {
        var sum = new RunEvents();
        for (int i = 0; i < _events.Length && i <= index; i++)
            if (_events[i] is { } events)
                sum.Add(events);
        return sum;
    }

    /// <summary>The deviations accepted by the judged cases up to and including case <paramref name="index"/>, by
    /// name. Read once every worker has ended.</summary>
    public Dictionary<string, int> KnownThrough(int index)
    {
        var sum = new Dictionary<string, int>();
        for (int i = 0; i < _known.Length && i <= index; i++)
            if (_known[i] is { } known)
                AddTo(sum, known);
        return sum;
    }

    /// <summary>Adds the counts of <paramref name="more"/> to <paramref name="into"/>.</summary>
    public static void AddTo(Dictionary<string, int> into, IReadOnlyDictionary<string, int> more)
    {
        foreach (var (name, count) in more)
            into[name] = into.GetValueOrDefault(name) + count;
    }

    // Each case index belongs to one worker, which writes its entry once; the check reads them after every worker's
    // thread has ended.
    private void Keep(int index, RunEvents? events, Dictionary<string, int>? known)
    {
        if (index < _events.Length)
            (_events[index], _known[index]) = (events, known);
    }

    private void Advance(int worker, int decidedBelow)
    {
        if (decidedBelow <= _decidedBelow[worker])
            return;
        _decidedBelow[worker] = decidedBelow;
        Monitor.PulseAll(_gate);
    }

    private void Progress()
    {
        lock (_progressGate)
        {
            _judged++;
            _onCase?.Invoke(_judged);
        }
    }
}
