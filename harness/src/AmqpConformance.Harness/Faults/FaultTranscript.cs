namespace AmqpConformance.Harness.Faults;

/// <summary>
/// What the fault pumps of one connection did, in order per direction: every delivered chunk (its size is
/// a chunk boundary the receiving side saw as a separate write), every dropped range, stall, reset and
/// close. Thread-safe: the two pumps append, anyone reads. Entries of different directions interleave in
/// whatever order the pumps ran; compare runs per direction (<see cref="For"/>).
/// </summary>
public sealed class FaultTranscript
{
    private readonly object _gate = new();
    private readonly List<TranscriptEntry> _entries = [];

    /// <summary>Appends an entry.</summary>
    public void Add(TranscriptEntry entry)
    {
        ArgumentNullException.ThrowIfNull(entry);
        lock (_gate)
            _entries.Add(entry);
    }

    /// <summary>A copy of all entries so far.</summary>
    public IReadOnlyList<TranscriptEntry> Snapshot()
    {
        lock (_gate)
            return [.. _entries];
    }

    /// <summary>A copy of the entries of one direction, in the order they happened.</summary>
    public IReadOnlyList<TranscriptEntry> For(FaultDirection direction)
    {
        lock (_gate)
            return [.. _entries.Where(e => e.Direction == direction)];
    }

    /// <summary>The sizes of the chunks delivered on <paramref name="direction"/>, in order.</summary>
    public IReadOnlyList<long> DeliveredChunkSizes(FaultDirection direction) =>
        [.. For(direction).Where(e => e.Kind == TranscriptEventKind.Delivered).Select(e => e.Length)];

    /// <summary>Total bytes delivered on <paramref name="direction"/>.</summary>
    public long DeliveredBytes(FaultDirection direction) => DeliveredChunkSizes(direction).Sum();

    /// <summary>One line per entry, for reports.</summary>
    public override string ToString() =>
        string.Join(
            Environment.NewLine,
            Snapshot()
                .Select(e =>
                    $"{e.Direction, -10} {e.Kind, -15} @{e.Offset} len={e.Length} delay={e.Delay.TotalMilliseconds}ms {e.Detail}"
                )
        );
}
