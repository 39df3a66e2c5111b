using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker;

/// <summary>What a <see cref="FakeAmqpBroker"/> remembers of a connection that ended, after its frame log may have been
/// evicted (<see cref="ConnectionRetention"/>). Immutable; taken once, when the connection ended.</summary>
/// <param name="Id">The connection's <see cref="BrokerConnection.Id"/> (1, 2, 3, ... in arrival order).</param>
/// <param name="AcceptedAt">When it was accepted (its log's <see cref="FrameLog.StartedAt"/>).</param>
/// <param name="EndedAt">When it ended.</param>
/// <param name="CloseInfo">How it ended (null only if it ended before anything set it, which the broker
/// avoids).</param>
/// <param name="Frames">Frames recorded over the connection's life, both directions (including any a
/// <see cref="FrameLogOptions.MaxRetainedFrames"/> bound dropped from memory).</param>
/// <param name="BytesReceived">Wire bytes received up to the end of the last whole frame, the 8-byte protocol header
/// included (bytes of a frame cut short are not counted).</param>
/// <param name="BytesSent">Wire bytes sent up to the end of the last frame recorded as sent (0 when
/// <see cref="FrameLogOptions.RecordSent"/> is off).</param>
/// <param name="FindingCount">How many findings the broker recorded on it.</param>
/// <param name="InternalError">Whether one of them is the broker's own failure ("internal-error", 541).</param>
/// <param name="EstimatedBytes">The memory its frame log held when it ended, as the retention budget counts it:
/// <see cref="RecordOverheadBytes"/> per frame held plus the payload bytes held, plus
/// <see cref="ConnectionOverheadBytes"/>. An estimate: allocator slack (such as a partly used buffer the payloads
/// share) is not counted.</param>
public sealed record ConnectionSummary(
    long Id,
    DateTimeOffset AcceptedAt,
    DateTimeOffset EndedAt,
    ConnectionCloseInfo? CloseInfo,
    long Frames,
    long BytesReceived,
    long BytesSent,
    int FindingCount,
    bool InternalError,
    long EstimatedBytes
)
{
    /// <summary>What one held frame record counts for in <see cref="EstimatedBytes"/>, besides its payload.</summary>
    public const int RecordOverheadBytes = 160;

    /// <summary>What a connection counts for in <see cref="EstimatedBytes"/> besides its frames (the connection, its
    /// channels, its log and findings).</summary>
    public const int ConnectionOverheadBytes = 4096;

    /// <summary>Summarizes <paramref name="connection"/>, which has ended (its log no longer changes).</summary>
    internal static ConnectionSummary Of(BrokerConnection connection, DateTimeOffset endedAt)
    {
        FrameLog log = connection.Log;
        IReadOnlyList<ProtocolFinding> findings = log.Findings();
        // Added up from the log's columns, not read back as facts frame by frame (which cost more than recording them).
        FrameLogTotals totals = log.Totals();
        long estimate = ConnectionOverheadBytes + totals.HeldFrames * RecordOverheadBytes + totals.PayloadBytes;
        return new ConnectionSummary(
            connection.Id,
            log.StartedAt,
            endedAt,
            connection.CloseInfo,
            log.NextSequence,
            totals.ReceivedThrough,
            totals.SentThrough,
            findings.Count,
            findings.Any(f => f.Rule == InternalErrorRule),
            estimate
        );
    }

    /// <summary>The <see cref="ProtocolFinding.Rule"/> of the broker's own failures (reply code 541).</summary>
    public const string InternalErrorRule = "internal-error";
}
