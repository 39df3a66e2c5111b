namespace AmqpConformance.Protocol.Recording;

/// <summary>
/// What the entries of a <see cref="FrameSegments"/> leave out (<see cref="FrameExtras"/>), kept only where it cannot be
/// told otherwise. A frame's offset is predicted from the frame before it in the same direction (its offset + size + 8),
/// and only a frame where that fails is marked (the first of each direction, a frame after a refused one); a timestamp
/// is marked where it differs from the frame before (a broker stamps every frame of one socket read, or of one outgoing
/// command, with one clock read); a size is kept in a column, in frame order, for the frames whose entry cannot give it
/// (<see cref="FrameEntry.SizeInSlot"/>). Each segment also notes where its first frame stands (predicted offsets, place
/// in the size column), so a read starts at the start of a segment instead of the start of the log. Not thread-safe:
/// used under the log's lock.
/// </summary>
internal sealed class FrameMarks
{
    /// <summary>A sequence number and the value that starts there.</summary>
    private readonly record struct Mark(long Sequence, long Value);

    /// <summary>Where a segment's first frame stands: the predicted offsets of each direction, and the size column's
    /// length before it.</summary>
    private readonly record struct SegmentStart(Prediction Offsets, long SizeIndex);

    /// <summary>The offset each direction's next frame is predicted at: the offset of the frame before it in that direction
    /// plus that frame's length. Recording and reading apply the same rule, here.</summary>
    internal struct Prediction
    {
        private long _sent;
        private long _received;

        public readonly long For(bool sent) => sent ? _sent : _received;

        public void After(bool sent, long offset, int size)
        {
            long next = offset + size + AmqpConstants.FrameOverhead;
            if (sent) _sent = next;
            else _received = next;
        }
    }

    private readonly List<SegmentStart> _segmentStarts = [];
    private readonly List<Mark> _offsets = [];
    private readonly List<Mark> _times = [];
    private readonly SizeColumn _sizes = new();
    private Prediction _next;

    /// <summary>A segment starts with the next frame.</summary>
    public void StartSegment() => _segmentStarts.Add(new SegmentStart(_next, _sizes.Next));

    /// <summary>Notes frame <paramref name="sequence"/>'s extras (marking them where they are not predicted).</summary>
    public void Add(long sequence, in FrameEntry entry, in FrameExtras extras)
    {
        if (!entry.SizeInSlot) _sizes.Add(extras.Size);
        bool sent = entry.Has(FrameEntryFlags.Sent);
        if (extras.WireOffset != _next.For(sent)) _offsets.Add(new Mark(sequence, extras.WireOffset));
        _next.After(sent, extras.WireOffset, extras.Size);
        if (_times.Count == 0 || _times[^1].Value != extras.TimestampTicks) _times.Add(new Mark(sequence, extras.TimestampTicks));
    }

    /// <summary>A reader that starts at the first frame of segment <paramref name="segment"/> (sequence
    /// <paramref name="segmentStart"/>).</summary>
    public Reader StartAt(int segment, long segmentStart)
    {
        var start = _segmentStarts[segment];
        return new Reader(this, start.Offsets, start.SizeIndex,
            FirstAtOrAfter(_offsets, segmentStart), FirstAtOrAfter(_times, segmentStart + 1) - 1);
    }

    /// <summary>Forgets what the first <paramref name="droppedSegments"/> segments' reads needed: their sizes, the offset marks
    /// before <paramref name="segmentBase"/> (the first segment still held), and the timestamp marks before
    /// <paramref name="first"/> (the first frame still held) but the one in force there.</summary>
    public void DropBefore(int droppedSegments, long segmentBase, long first)
    {
        if (droppedSegments > 0)
        {
            _sizes.DropBefore(droppedSegments < _segmentStarts.Count ? _segmentStarts[droppedSegments].SizeIndex : _sizes.Next);
            _segmentStarts.RemoveRange(0, droppedSegments);
        }
        _offsets.RemoveRange(0, FirstAtOrAfter(_offsets, segmentBase));
        int inForce = FirstAtOrAfter(_times, first + 1) - 1;
        if (inForce > 0) _times.RemoveRange(0, inForce);
    }

    /// <summary>The index of the first mark at or after <paramref name="sequence"/> (the count when there is none).</summary>
    private static int FirstAtOrAfter(List<Mark> marks, long sequence)
    {
        int low = 0, high = marks.Count;
        while (low < high)
        {
            int mid = (low + high) >>> 1;
            if (marks[mid].Sequence < sequence) low = mid + 1;
            else high = mid;
        }
        return low;
    }

    /// <summary>Reads the extras frame after frame, forward from a segment's start.</summary>
    internal struct Reader(FrameMarks marks, Prediction next, long sizeAt, int offsetAt, int timeAt)
    {
        private Prediction _next = next;
        private long _sizeAt = sizeAt;
        private int _offsetAt = offsetAt;
        private int _timeAt = timeAt;

        /// <summary>False for the default reader, which reads nothing.</summary>
        public readonly bool IsSet => marks is not null;

        /// <summary>The extras of frame <paramref name="sequence"/>, the next frame after the last one read. A frame before the
        /// first timestamp mark still held (it was dropped) reads 0 ticks.</summary>
        public FrameExtras Read(long sequence, in FrameEntry entry)
        {
            int size = entry.SizeInSlot ? PayloadStore.LengthOf(entry.Slot) : marks._sizes[_sizeAt++];
            bool sent = entry.Has(FrameEntryFlags.Sent);
            long offset = _next.For(sent);
            if (_offsetAt < marks._offsets.Count && marks._offsets[_offsetAt].Sequence == sequence) offset = marks._offsets[_offsetAt++].Value;
            _next.After(sent, offset, size);
            while (_timeAt + 1 < marks._times.Count && marks._times[_timeAt + 1].Sequence <= sequence) _timeAt++;
            return new FrameExtras(offset, _timeAt >= 0 ? marks._times[_timeAt].Value : 0, size);
        }
    }
}
