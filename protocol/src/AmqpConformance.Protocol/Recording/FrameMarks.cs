namespace AmqpConformance.Protocol.Recording;

/// <summary>
/// What the entries of a <see cref="FrameSegments"/> leave out (<see cref="FrameExtras"/>), kept only where it cannot
/// be told otherwise. A frame's offset is predicted from the frame before it in the same direction (its offset + size +
/// 8), and only a frame where that fails is marked (the first of each direction, a frame after a refused one); a
/// timestamp is kept where it differs from the frame before in the segment (a broker stamps every frame of one socket
/// read, or of one outgoing command, with one clock read), in a column of timestamps alone that the frames flagged
/// <see cref="FrameEntryFlags.TimeKept"/> take in order (8 bytes each: with 1 MiB bodies a socket read brings about two
/// frames, and a timestamp with its sequence number, 16 bytes, was most of what the log allocated beside the entries);
/// a size is kept in a column, in frame order, for the frames whose entry cannot give it
/// (<see cref="FrameEntry.SizeInSlot"/>). All three are <see cref="PinnedChunks{T}"/> columns. Each segment also notes
/// where its first frame stands (predicted offsets, places in the size and time columns; its first frame's size and
/// timestamp are always kept), so a read starts at the start of a segment instead of the start of the log. Not
/// thread-safe: used under the log's lock.
/// </summary>
internal sealed class FrameMarks
{
    /// <summary>A sequence number and the value that starts there.</summary>
    private readonly record struct Mark(long Sequence, long Value);

    /// <summary>Where a segment's first frame stands: the predicted offsets of each direction, and the size and time
    /// columns' lengths before it.</summary>
    private readonly record struct SegmentStart(Prediction Offsets, long SizeIndex, long TimeIndex);

    /// <summary>The offset each direction's next frame is predicted at: the offset of the frame before it in that
    /// direction plus that frame's length. Recording and reading apply the same rule, here.</summary>
    internal struct Prediction
    {
        private long _sent;
        private long _received;

        public readonly long For(bool sent) => sent ? _sent : _received;

        public void After(bool sent, long offset, int size)
        {
            long next = offset + size + AmqpConstants.FrameOverhead;
            if (sent)
                _sent = next;
            else
                _received = next;
        }
    }

    /// <summary>Offset marks per chunk: 256 x 16 bytes = 4 KiB, so a connection of few frames pays little for the
    /// column.</summary>
    private const int MarksPerChunk = 256;

    /// <summary>Timestamps per chunk: 512 x 8 bytes = 4 KiB.</summary>
    private const int TimesPerChunk = 512;

    /// <summary>Sizes per chunk: 1,024 x 4 bytes = 4 KiB, as small as the other columns' chunks: a body frame's size
    /// is kept here unless it equals the last one kept (its entry's slot holds its digest), so a connection's first body
    /// frame starts the column, and with 16 KiB chunks a connection that carried a few dozen large bodies paid 16 KiB
    /// for a few hundred bytes of sizes (at four connections of 30 1 MiB messages each, more than half of what the fake
    /// broker allocated per message).</summary>
    private const int SizesPerChunk = 1024;

    private readonly List<SegmentStart> _segmentStarts = [];
    private readonly PinnedChunks<Mark> _offsets = new(MarksPerChunk);
    private readonly PinnedChunks<long> _times = new(TimesPerChunk);
    private readonly PinnedChunks<int> _sizes = new(SizesPerChunk);
    private Prediction _next;
    private long _lastTime = -1; // the timestamp last kept in the current segment (-1 at a segment's start; ticks are never negative)

    /// <summary>The size last added to <see cref="_sizes"/> in the current segment (-1 at a segment's start: its first
    /// size is always kept, so a read from the segment's start needs nothing from before it).</summary>
    private int _lastSize = -1;

    /// <summary>A segment starts with the next frame.</summary>
    public void StartSegment()
    {
        _segmentStarts.Add(new SegmentStart(_next, _sizes.Next, _times.Next));
        _lastSize = -1;
        _lastTime = -1;
    }

    /// <summary>Notes frame <paramref name="sequence"/>'s extras (marking them where they are not predicted); a size
    /// its entry cannot give and that repeats the last kept one is flagged on the entry
    /// (<see cref="FrameEntryFlags.SizeRepeated"/>) instead of kept again; a timestamp that differs from the last kept
    /// one is kept and flagged (<see cref="FrameEntryFlags.TimeKept"/>).</summary>
    public void Add(long sequence, ref FrameEntry entry, in FrameExtras extras)
    {
        if (!entry.SizeInSlot)
        {
            if (extras.Size == _lastSize)
            {
                entry.Flags |= FrameEntryFlags.SizeRepeated;
            }
            else
            {
                _sizes.Add(extras.Size);
                _lastSize = extras.Size;
            }
        }
        bool sent = entry.Has(FrameEntryFlags.Sent);
        if (extras.WireOffset != _next.For(sent))
            _offsets.Add(new Mark(sequence, extras.WireOffset));
        _next.After(sent, extras.WireOffset, extras.Size);
        if (_lastTime != extras.TimestampTicks)
        {
            _times.Add(extras.TimestampTicks);
            _lastTime = extras.TimestampTicks;
            entry.Flags |= FrameEntryFlags.TimeKept;
        }
    }

    /// <summary>A reader that starts at the first frame of segment <paramref name="segment"/> (sequence
    /// <paramref name="segmentStart"/>).</summary>
    public Reader StartAt(int segment, long segmentStart)
    {
        var start = _segmentStarts[segment];
        return new Reader(
            this,
            start.Offsets,
            start.SizeIndex,
            FirstAtOrAfter(_offsets, segmentStart),
            start.TimeIndex
        );
    }

    /// <summary>Lets go of what the first <paramref name="droppedSegments"/> segments' reads needed: their sizes and
    /// timestamps, and the offset marks before <paramref name="segmentBase"/> (the first segment still held); each
    /// column in whole chunks, so some of those may stay (reads start past them).</summary>
    public void DropBefore(int droppedSegments, long segmentBase)
    {
        if (droppedSegments > 0)
        {
            bool all = droppedSegments >= _segmentStarts.Count;
            _sizes.DropBefore(all ? _sizes.Next : _segmentStarts[droppedSegments].SizeIndex);
            _times.DropBefore(all ? _times.Next : _segmentStarts[droppedSegments].TimeIndex);
            _segmentStarts.RemoveRange(0, droppedSegments);
        }
        _offsets.DropBefore(FirstAtOrAfter(_offsets, segmentBase));
    }

    /// <summary>The position of the first mark held at or after <paramref name="sequence"/>
    /// (<see cref="PinnedChunks{T}.Next"/> when there is none).</summary>
    private static long FirstAtOrAfter(PinnedChunks<Mark> marks, long sequence)
    {
        long low = marks.First,
            high = marks.Next;
        while (low < high)
        {
            long mid = (low + high) >>> 1;
            if (marks[mid].Sequence < sequence)
                low = mid + 1;
            else
                high = mid;
        }
        return low;
    }

    /// <summary>Reads the extras frame after frame, forward from a segment's start.</summary>
    internal struct Reader(FrameMarks marks, Prediction next, long sizeAt, long offsetAt, long timeAt)
    {
        private Prediction _next = next;
        private long _sizeAt = sizeAt;
        private long _offsetAt = offsetAt;
        private long _timeAt = timeAt;
        private int _lastSize = -1;
        private long _lastTime;

        /// <summary>False for the default reader, which reads nothing.</summary>
        public readonly bool IsSet => marks is not null;

        /// <summary>The extras of frame <paramref name="sequence"/>, the next frame after the last one read.</summary>
        public FrameExtras Read(long sequence, in FrameEntry entry)
        {
            int size =
                entry.SizeInSlot ? PayloadStore.LengthOf(entry.Slot)
                : entry.Has(FrameEntryFlags.SizeRepeated) ? _lastSize
                : _lastSize = marks._sizes[_sizeAt++];
            bool sent = entry.Has(FrameEntryFlags.Sent);
            long offset = _next.For(sent);
            if (_offsetAt < marks._offsets.Next && marks._offsets[_offsetAt].Sequence == sequence)
                offset = marks._offsets[_offsetAt++].Value;
            _next.After(sent, offset, size);
            if (entry.Has(FrameEntryFlags.TimeKept))
                _lastTime = marks._times[_timeAt++];
            return new FrameExtras(offset, _lastTime, size);
        }
    }
}
