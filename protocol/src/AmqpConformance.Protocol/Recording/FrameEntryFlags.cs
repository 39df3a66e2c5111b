namespace AmqpConformance.Protocol.Recording;

/// <summary>The yes/no facts of a <see cref="FrameEntry"/>, in one byte; they also say what its
/// <see cref="FrameEntry.Slot"/> holds.</summary>
[Flags]
internal enum FrameEntryFlags : byte
{
    None = 0,
    Sent = 1,
    FrameEndValid = 2,

    /// <summary>The slot holds the payload's digest (a body frame whose payload is not kept).</summary>
    Digest = 4,

    /// <summary>The slot holds where the payload is in the log's <see cref="PayloadStore"/>.</summary>
    Payload = 8,

    /// <summary>With <see cref="Payload"/>: the payload has an array of its own (its length is the array's).</summary>
    OwnArray = 16,

    /// <summary>The frame's timestamp differs from the frame's before it in its segment (or it is its segment's first):
    /// it is kept in the log's time column, which has one value per frame so flagged
    /// (<see cref="FrameMarks"/>).</summary>
    TimeKept = 32,

    /// <summary>With <see cref="Payload"/> in a shared chunk: the frame's size is not its payload's length (it is kept
    /// beside the entry, as for a frame without such a payload).</summary>
    SizeKept = 64,

    /// <summary>The frame's size, which its entry cannot give, equals the size of the frame before it in its segment
    /// that had the same need, so it is not kept again (a run of full body frames, or of equal small bodies, keeps
    /// one).</summary>
    SizeRepeated = 128,

    /// <summary>The frame was appended as a ready-made <see cref="FrameRecord"/>, which the log keeps and returns: a
    /// combination no recorded frame has (a digest is never kept with an array of its own, which goes only with
    /// <see cref="Payload"/>), so that it takes no bit of its own. Test it with <see cref="FrameEntry.Has"/>, which
    /// asks for every bit.</summary>
    Record = Digest | OwnArray,
}
