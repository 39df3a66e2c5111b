namespace AmqpConformance.Protocol.Recording;

/// <summary>What a <see cref="FrameEntry"/> leaves out and <see cref="FrameMarks"/> keeps: the frame's offset in its
/// direction's byte stream, its timestamp, and its size (the payload's octets, as the frame header gives
/// them).</summary>
internal readonly record struct FrameExtras(long WireOffset, long TimestampTicks, int Size);
