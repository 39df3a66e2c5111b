namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>
/// An immutable copy of one connection's <see cref="FrameLog"/>: what the exporters write and what
/// <see cref="JsonLinesReader"/> loads back. Taking one never blocks the connection that appends to the log.
/// </summary>
public sealed record FrameLogSnapshot
{
    /// <summary>The broker's id for the connection (<see cref="FrameLog.ConnectionId"/>).</summary>
    public required long ConnectionId { get; init; }

    /// <summary>Wall-clock start of the log; every <see cref="FrameRecord.Timestamp"/> counts from here.</summary>
    public required DateTimeOffset StartedAt { get; init; }

    /// <summary>What the log kept (whether body payloads and sent frames are present).</summary>
    public required FrameLogOptions Options { get; init; }

    /// <summary>The frames in sequence order.</summary>
    public required IReadOnlyList<FrameRecord> Frames { get; init; }

    /// <summary>The broker's findings on the connection.</summary>
    public IReadOnlyList<ProtocolFinding> Findings { get; init; } = [];

    /// <summary>Why the connection ended, when the writer of the file knew it (the "end" line); null
    /// otherwise.</summary>
    public string? EndReason { get; init; }

    /// <summary>True when the file held an "end" line for this connection, i.e. the log is complete.</summary>
    public bool Ended { get; init; }

    /// <summary>Copies the frames and findings <paramref name="log"/> holds right now.</summary>
    public static FrameLogSnapshot From(FrameLog log, string? endReason = null, bool ended = false)
    {
        ArgumentNullException.ThrowIfNull(log);
        return new FrameLogSnapshot
        {
            ConnectionId = log.ConnectionId,
            StartedAt = log.StartedAt,
            Options = log.Options,
            Frames = log.Snapshot(),
            Findings = log.Findings(),
            EndReason = endReason,
            Ended = ended,
        };
    }
}
