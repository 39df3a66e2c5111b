namespace AmqpConformance.Harness.Faults;

/// <summary>What a <see cref="TranscriptEntry"/> records.</summary>
public enum TranscriptEventKind
{
    /// <summary>A chunk of bytes went to the receiving side (one write + flush).</summary>
    Delivered,

    /// <summary>Bytes were swallowed by a black hole.</summary>
    Dropped,

    /// <summary>A stall began; the stream stopped being read.</summary>
    StallStarted,

    /// <summary>A stall ended (its duration passed or the test released it).</summary>
    StallEnded,

    /// <summary>A black hole opened.</summary>
    BlackHoleOpened,

    /// <summary>The connection was reset by a fault.</summary>
    Reset,

    /// <summary>The connection was closed by a fault (limit reached, black hole timed out or removed).</summary>
    Closed,

    /// <summary>The sending side ended its stream and the end was passed on (after any slow-close delay).</summary>
    Ended,
}
