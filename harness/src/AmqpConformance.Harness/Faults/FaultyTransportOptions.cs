namespace AmqpConformance.Harness.Faults;

/// <summary>Settings of a <see cref="FaultyTransport"/>.</summary>
public sealed record FaultyTransportOptions
{
    /// <summary>Real (sleep the delays) or virtual (count them, never sleep). Default real.</summary>
    public FaultTimeMode TimeMode { get; init; } = FaultTimeMode.Real;

    /// <summary>The clock for real delays and timestamps; default <see cref="TimeProvider.System"/>.</summary>
    public TimeProvider? TimeProvider { get; init; }

    /// <summary>Bytes a link holds for a sender before the sender's FlushAsync waits (default 64 KiB):
    /// the bound on what a stalled transport makes a well-behaved writer hold.</summary>
    public long PauseWriterThreshold { get; init; } = 64 * 1024;

    /// <summary>Held bytes below which a waiting FlushAsync resumes (default 32 KiB).</summary>
    public long ResumeWriterThreshold { get; init; } = 32 * 1024;

    /// <summary>How an orderly close (limit_data, a black hole's removal, the receiver no longer reading) reaches the
    /// sender: false (default) makes its next write or flush throw <see cref="TransportClosedException"/>; true
    /// completes the sender's pipe without an error, so its next flush returns <c>FlushResult.IsCompleted</c>, as a
    /// socket transport such as Kestrel's reports a peer that went away. A reset always throws
    /// <see cref="TransportResetException"/>.</summary>
    public bool OrderlyCloseAsCompletion { get; init; }

    /// <summary>Defaults: real time, 64 KiB / 32 KiB thresholds.</summary>
    public static FaultyTransportOptions Default { get; } = new();
}
