namespace AmqpConformance.Harness.Faults;

/// <summary>
/// The faults currently acting on one direction of a connection. A <see cref="FaultPump"/> reads
/// <see cref="Current"/> before every chunk, so changes apply to data that arrives afterwards; a held
/// fault (stall without duration, black hole) ends when it is removed. Thread-safe.
/// </summary>
/// <remarks>Faults are tracked by reference: two equal fault records are two faults.</remarks>
public sealed class LiveFaultList
{
    private readonly object _gate = new();
    private Fault[] _current;
    private TaskCompletionSource _changed = NewSignal();

    /// <summary>Creates the list with <paramref name="initial"/> faults (validated).</summary>
    public LiveFaultList(IEnumerable<Fault>? initial = null)
    {
        _current = initial is null ? [] : [.. initial];
        foreach (Fault f in _current)
            f.Validate();
    }

    /// <summary>The faults now in force, in order.</summary>
    public IReadOnlyList<Fault> Current => Volatile.Read(ref _current);

    /// <summary>Completes at the next change; take it before reading <see cref="Current"/> to miss nothing.</summary>
    public Task WhenChanged
    {
        get
        {
            lock (_gate)
                return _changed.Task;
        }
    }

    /// <summary>Whether this very fault object is in force.</summary>
    public bool Contains(Fault fault) => Array.IndexOf(Volatile.Read(ref _current), fault) >= 0;

    /// <summary>Replaces the whole list.</summary>
    public void Set(IEnumerable<Fault> faults)
    {
        ArgumentNullException.ThrowIfNull(faults);
        Fault[] next = [.. faults];
        foreach (Fault f in next)
            f.Validate();
        Update(_ => next);
    }

    /// <summary>Adds a fault at the end.</summary>
    public void Add(Fault fault)
    {
        ArgumentNullException.ThrowIfNull(fault);
        fault.Validate();
        Update(cur => [.. cur, fault]);
    }

    /// <summary>Removes this fault object; returns whether it was present.</summary>
    public bool Remove(Fault fault)
    {
        bool removed = false;
        Update(cur =>
        {
            removed = Array.IndexOf(cur, fault) >= 0;
            return [.. cur.Where(f => !ReferenceEquals(f, fault))];
        });
        return removed;
    }

    /// <summary>Removes every fault matching <paramref name="predicate"/>; returns how many.</summary>
    public int RemoveAll(Func<Fault, bool> predicate)
    {
        ArgumentNullException.ThrowIfNull(predicate);
        int count = 0;
        Update(cur =>
        {
            Fault[] keep = [.. cur.Where(f => !predicate(f))];
            count = cur.Length - keep.Length;
            return keep;
        });
        return count;
    }

    private void Update(Func<Fault[], Fault[]> change)
    {
        TaskCompletionSource signal;
        lock (_gate)
        {
            _current = change(_current);
            signal = _changed;
            _changed = NewSignal();
        }
        signal.TrySetResult();
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
