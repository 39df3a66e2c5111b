namespace AmqpConformance.Protocol.Recording;

/// <summary>The frames a <see cref="FrameLog"/> holds: 12-byte <see cref="FrameEntry"/> structs in fixed-size segment
/// arrays (each under the large-object threshold), addressed by sequence number, plus what an entry leaves out
/// (<see cref="FrameExtras"/>: wire offset, timestamp, size), kept by <see cref="FrameMarks"/> only where it cannot be
/// told otherwise. Appending fills the last segment and starts a new one when it is
/// full, so nothing is ever copied to grow; dropping the oldest frames releases whole segments, which are kept for
/// reuse by later appends (entries hold no references, so there is nothing to clear).</summary>
/// <remarks>Not thread-safe: the log calls every member under its lock. A segment is only recycled under that lock,
/// and readers read entries under it, so no reader can see a recycled segment. Records handed out never point into
/// segments (only into payload arrays), which is what makes recycling them safe.</remarks>
internal sealed class FrameSegments
{
    /// <summary>Entries per segment: 4096 x 12 bytes = 48 KiB, below the 85,000-byte large-object threshold.</summary>
    public const int SegmentLength = 4096;

    private readonly List<FrameEntry[]> _segments = [];
    private readonly Stack<FrameEntry[]> _spare = new();
    private readonly FrameMarks _marks = new();

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

    /// <summary>Appends <paramref name="entry"/> with its <paramref name="extras"/>; returns its sequence number.</summary>
    public long Add(in FrameEntry entry, in FrameExtras extras)
    {
        if (_tailUsed == SegmentLength) StartSegment();
        _tail![_tailUsed++] = entry;
        _marks.Add(Next, entry, extras);
        return Next++;
    }

    private void StartSegment()
    {
        _tail = _spare.Count > 0 ? _spare.Pop() : NewSegment();
        _segments.Add(_tail);
        _marks.StartSegment();
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

    /// <summary>Reads the held frames from <paramref name="sequence"/> on (clamped to <see cref="First"/>), in order, with
    /// their extras; starts from the beginning of the sequence's segment, so it costs at most a
    /// segment's worth of entries before the first one it yields.</summary>
    public FrameWalk Walk(long sequence)
    {
        sequence = Math.Clamp(sequence, First, Next);
        if (sequence == Next) return new FrameWalk(this, default, Next);
        int segment = (int)((sequence - _segmentBase) / SegmentLength);
        FrameWalk walk;
        if (segment == 0 && First > _segmentBase)
        {
            // The first segment's dropped frames are read once after each drop, not by every walk from the first held frame.
            if (_atFirst is not { } atFirst)
            {
                atFirst = new FrameWalk(this, _marks.StartAt(0, _segmentBase), _segmentBase);
                atFirst.MoveBefore(First);
                _atFirst = atFirst;
            }
            walk = atFirst;
        }
        else
        {
            long start = _segmentBase + (long)segment * SegmentLength;
            walk = new FrameWalk(this, _marks.StartAt(segment, start), start);
        }
        walk.MoveBefore(sequence);
        return walk;
    }

    /// <summary>A walk standing just before <see cref="First"/>, made by the first walk after a drop; a drop forgets it (it
    /// moves <see cref="First"/> and shifts the marks' lists), an append does not change it.</summary>
    private FrameWalk? _atFirst;

    /// <summary>Drops every frame before <paramref name="sequence"/>; segments left wholly unused are kept for reuse.</summary>
    public void DropBefore(long sequence)
    {
        First = Math.Clamp(sequence, First, Next);
        int dropped = 0;
        while (First - _segmentBase >= SegmentLength)
        {
            var segment = _segments[0];
            _segments.RemoveAt(0);
            _spare.Push(segment);
            _segmentBase += SegmentLength;
            dropped++;
        }
        _marks.DropBefore(dropped, _segmentBase, First);
        _atFirst = null;
    }

    /// <summary>A forward read of the held frames (see <see cref="Walk"/>): before the first <see cref="MoveNext"/> it stands
    /// just before the frame the walk was asked for.</summary>
    internal struct FrameWalk
    {
        private readonly FrameSegments _frames;
        private FrameMarks.Reader _marks;

        internal FrameWalk(FrameSegments frames, FrameMarks.Reader marks, long start)
        {
            _frames = frames;
            _marks = marks;
            Sequence = start - 1;
        }

        /// <summary>The frame the walk stands on.</summary>
        public long Sequence { get; private set; }

        /// <summary>Its wire offset, timestamp and size.</summary>
        public FrameExtras Extras { get; private set; }

        /// <summary>Its entry.</summary>
        public readonly ref readonly FrameEntry Entry => ref _frames[Sequence];

        /// <summary>Reads on until the walk stands just before <paramref name="sequence"/> (or on the newest frame).</summary>
        public void MoveBefore(long sequence)
        {
            while (Sequence < sequence - 1 && MoveNext()) { }
        }

        /// <summary>Moves to the next frame; false once past the newest.</summary>
        public bool MoveNext()
        {
            if (Sequence + 1 >= _frames.Next) return false;
            Sequence++;
            Extras = _marks.Read(Sequence, _frames[Sequence]);
            return true;
        }
    }
}
