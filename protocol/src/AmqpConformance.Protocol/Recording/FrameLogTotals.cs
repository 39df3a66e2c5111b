namespace AmqpConformance.Protocol.Recording;

/// <summary>What a <see cref="FrameLog"/>'s held frames add up to (<see cref="FrameLog.Totals"/>).</summary>
/// <param name="HeldFrames">How many frames the log holds (<see cref="FrameLog.Count"/>).</param>
/// <param name="ReceivedThrough">The wire offset just past the last held received frame (its offset + size + 8), or 0
/// when none is held: how many bytes of the client's stream up to the end of its last whole frame, protocol header
/// included.</param>
/// <param name="SentThrough">The same for the frames sent, or 0 when none is held.</param>
/// <param name="PayloadBytes">The payload bytes the held frames keep, each frame counted with the payload its record
/// would show (a payload shared by repeated frames counts for each of them).</param>
public readonly record struct FrameLogTotals(
    long HeldFrames,
    long ReceivedThrough,
    long SentThrough,
    long PayloadBytes
);
