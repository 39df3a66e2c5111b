namespace AmqpConformance.Protocol.Recording;

/// <summary>The frames a <see cref="FrameLog"/> holds: 12-byte <see cref="FrameEntry"/> structs in fixed-size segments
/// (the chunks of a <see cref="PinnedChunks{T}"/>, each under the large-object threshold), addressed by sequence
/// number, plus what an entry leaves out (<see cref="FrameExtras"/>: wire offset, timestamp, size), kept by
/// <see cref="FrameMarks"/> only where it cannot be told otherwise. Appending fills the last segment and starts a new
/// one when it is full, so nothing is ever copied to grow; dropping the oldest frames releases whole segments, which
/// are kept for reuse by later appends (entries hold no references, so there is nothing to clear).</summary>
/// <remarks>Not thread-safe: the log calls every member under its lock. A segment is only recycled under that lock,
/// and readers read entries under it, so no reader can see a recycled segment. Records handed out never point into
/// segments (only into payload arrays), which is what makes recycling them safe.</remarks>
internal sealed class FrameSegments
{
    /// <summary>Entries per segment: 4096 x 12 bytes = 48 KiB, below the 85,000-byte large-object threshold.</summary>
    public const int SegmentLength = 4096;

    private readonly PinnedChunks<FrameEntry> _entries = new(SegmentLength, prepareAhead: true);
    private readonly FrameMarks _marks = new();

    /// <summary>Sequence number of the first entry of the first segment.</summary>
    private long SegmentBase => _entries.First;

    /// <summary>Sequence number of the first frame held (= how many were dropped).</summary>
    public long First { get; private set; }

    /// <summary>Sequence number the next frame gets (= how many were ever appended).</summary>
    public long Next => _entries.Next;

    /// <summary>How many frames are held.</summary>
    public long Count => Next - First;

    /// <summary>Appends <paramref name="entry"/> with its <paramref name="extras"/>; returns its sequence
    /// number.</summary>
    public long Add(FrameEntry entry, in FrameExtras extras)
    {
        if (_entries.NextStartsChunk)
            _marks.StartSegment();
        _marks.Add(Next, ref entry, extras);
        return _entries.Add(entry);
    }

    /// <summary>The entry of <paramref name="sequence"/>, which must be held (First &lt;= sequence &lt;
    /// Next).</summary>
    public ref readonly FrameEntry this[long sequence] => ref _entries[sequence];

    /// <summary>Reads the held frames from <paramref name="sequence"/> on (clamped to <see cref="First"/>), in order,
    /// with their extras. It starts from the nearest of: the walk last handed back with <see cref="Park"/> when that
    /// stands before <paramref name="sequence"/>, or the beginning of the sequence's segment; so a reader that reads on
    /// from where its last walk stopped (and parks it) pays nothing to get there, and any other at most a segment's
    /// worth of entries.</summary>
    public FrameWalk Walk(long sequence)
    {
        sequence = Math.Clamp(sequence, First, Next);
        if (_parked is { } parked && parked.Sequence < sequence && parked.Sequence + 1 >= SegmentStartOf(sequence))
        {
            parked.MoveBefore(sequence);
            return parked;
        }
        if (sequence == Next)
            return new FrameWalk(this, default, Next);
        int segment = (int)((sequence - SegmentBase) / SegmentLength);
        FrameWalk walk;
        if (segment == 0 && First > SegmentBase)
        {
            // The first segment's dropped frames are read once after each drop, not by every walk from the first held
            // frame.
            if (_atFirst is not { } atFirst)
            {
                atFirst = new FrameWalk(this, _marks.StartAt(0, SegmentBase), SegmentBase);
                atFirst.MoveBefore(First);
                _atFirst = atFirst;
            }
            walk = atFirst;
        }
        else
        {
            long start = SegmentStartOf(sequence);
            walk = new FrameWalk(this, _marks.StartAt(segment, start), start);
        }
        walk.MoveBefore(sequence);
        return walk;
    }

    /// <summary>The sequence number of the first entry of the segment <paramref name="sequence"/> is in (or would be
    /// in).</summary>
    private long SegmentStartOf(long sequence) => sequence - (sequence - SegmentBase) % SegmentLength;

    /// <summary>Hands a walk back when its reader is done, so that the next <see cref="Walk"/> from a later frame can
    /// go on from it (a reader reading the log in batches then walks it once). A walk made when nothing was held after
    /// its start is not kept: it has no place in the marks to go on from.</summary>
    public void Park(in FrameWalk walk)
    {
        if (walk.CanGoOn)
            _parked = walk;
    }

    /// <summary>A walk standing just before <see cref="First"/>, made by the first walk after a drop; a drop forgets it
    /// (it moves <see cref="First"/> and lets go of entries and marks), an append does not change it.</summary>
    private FrameWalk? _atFirst;

    /// <summary>The walk last handed to <see cref="Park"/>; forgotten, as <see cref="_atFirst"/>, by a drop, and still
    /// valid after appends (the marks only grow at their ends).</summary>
    private FrameWalk? _parked;

    /// <summary>Drops every frame before <paramref name="sequence"/>; segments left wholly unused are kept for
    /// reuse.</summary>
    public void DropBefore(long sequence)
    {
        First = Math.Clamp(sequence, First, Next);
        int dropped = _entries.DropBefore(First);
        _marks.DropBefore(dropped, SegmentBase);
        _atFirst = null;
        _parked = null;
    }

    /// <summary>A forward read of the held frames (see <see cref="Walk"/>): before the first <see cref="MoveNext"/> it
    /// stands just before the frame the walk was asked for.</summary>
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

        /// <summary>Whether the walk can read on past the frames held when it was made (false for the empty walk made
        /// at the newest frame, which has no reader of the marks).</summary>
        public readonly bool CanGoOn => _marks.IsSet;

        /// <summary>The frame the walk stands on.</summary>
        public long Sequence { get; private set; }

        /// <summary>Its wire offset, timestamp and size.</summary>
        public FrameExtras Extras { get; private set; }

        /// <summary>Its entry.</summary>
        public readonly ref readonly FrameEntry Entry => ref _frames[Sequence];

        /// <summary>Reads on until the walk stands just before <paramref name="sequence"/> (or on the newest
        /// frame).</summary>
        public void MoveBefore(long sequence)
        {
            while (Sequence < sequence - 1 && MoveNext()) { }
        }

        /// <summary>Moves to the next frame; false once past the newest.</summary>
        public bool MoveNext()
        {
            if (Sequence + 1 >= _frames.Next)
                return false;
            Sequence++;
            Extras = _marks.Read(Sequence, _frames[Sequence]);
            return true;
        }
    }
}
