namespace AmqpConformance.Protocol.Recording;

/// <summary>The frames a <see cref="FrameLog"/> holds: <see cref="FrameEntry"/> structs in fixed-size segment arrays
/// (each under the large-object threshold), addressed by sequence number. Appending fills the last segment and starts
/// a new one when it is full, so nothing is ever copied to grow; dropping the oldest frames releases whole segments,
/// which are kept for reuse by later appends (entries hold no references, so there is nothing to clear).</summary>
/// <remarks>Not thread-safe: the log calls every member under its lock. A segment is only recycled under that lock,
/// and readers read entries under it, so no reader can see a recycled segment. Records handed out never point into
/// segments (only into payload arrays), which is what makes recycling them safe.</remarks>
internal sealed class FrameSegments
{
    /// <summary>Entries per segment: 2048 x 32 bytes = 64 KiB, below the 85,000-byte large-object threshold.</summary>
    public const int SegmentLength = 2048;

    private readonly List<FrameEntry[]> _segments = [];
    private readonly Stack<FrameEntry[]> _spare = new();

    /// <summary>The last segment, which appends fill, and how many of its entries are used (<see cref="SegmentLength"/>
    /// when there is none or it is full, so the next append starts one). A segment is only dropped once every entry in
    /// it is before <see cref="First"/>, so a partly filled tail is never dropped.</summary>
    private FrameEntry[]? _tail;
    private int _tailUsed = SegmentLength;

    /// <summary>Sequence number of the first entry of the first segment.</summary>
    private long _segmentBase;

    /// <summary>Sequence number of the first frame held (= how many were dropped).</summary>
    public long First { get; private set; }

    /// <summary>Sequence number the next frame gets (= how many were ever appended).</summary>
    public long Next { get; private set; }

    /// <summary>How many frames are held.</summary>
    public long Count => Next - First;

    /// <summary>Appends <paramref name="entry"/>; returns its sequence number.</summary>
    public long Add(in FrameEntry entry)
    {
        if (_tailUsed == SegmentLength) StartSegment();
        _tail![_tailUsed++] = entry;
        return Next++;
    }

    private void StartSegment()
    {
        _tail = _spare.Count > 0 ? _spare.Pop() : NewSegment();
        _segments.Add(_tail);
        _tailUsed = 0;
    }

    /// <summary>A new segment, on the pinned object heap: it lives as long as the log, so there it is never copied from
    /// generation to generation nor compacted, and young collections do not touch it (it holds no references).</summary>
    private static FrameEntry[] NewSegment() => GC.AllocateUninitializedArray<FrameEntry>(SegmentLength, pinned: true);

    /// <summary>The entry of <paramref name="sequence"/>, which must be held (First &lt;= sequence &lt; Next).</summary>
    public ref readonly FrameEntry this[long sequence]
    {
        get
        {
            long offset = sequence - _segmentBase;
            return ref _segments[(int)(offset / SegmentLength)][(int)(offset % SegmentLength)];
        }
    }

    /// <summary>Drops every frame before <paramref name="sequence"/>; segments left wholly unused are kept for reuse.</summary>
    public void DropBefore(long sequence)
    {
        First = Math.Clamp(sequence, First, Next);
        while (First - _segmentBase >= SegmentLength)
        {
            var segment = _segments[0];
            _segments.RemoveAt(0);
            _spare.Push(segment);
            _segmentBase += SegmentLength;
        }
    }
}
