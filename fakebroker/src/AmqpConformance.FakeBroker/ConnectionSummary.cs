using System.Buffers;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker;

/// <summary>What a <see cref="FakeBroker"/> remembers of a connection that ended, after its frame log may have been
/// evicted (<see cref="ConnectionRetention"/>). Immutable; taken once, when the connection ended.</summary>
/// <param name="Id">The connection's <see cref="BrokerConnection.Id"/> (1, 2, 3, ... in arrival order).</param>
/// <param name="AcceptedAt">When it was accepted (its log's <see cref="FrameLog.StartedAt"/>).</param>
/// <param name="EndedAt">When it ended.</param>
/// <param name="CloseInfo">How it ended (null only if it ended before anything set it, which the broker avoids).</param>
/// <param name="Frames">Frames recorded over the connection's life, both directions (including any a
/// <see cref="FrameLogOptions.MaxRetainedFrames"/> bound dropped from memory).</param>
/// <param name="BytesReceived">Wire bytes received up to the end of the last whole frame, the 8-byte protocol header
/// included (bytes of a frame cut short are not counted).</param>
/// <param name="BytesSent">Wire bytes sent up to the end of the last frame recorded as sent (0 when
/// <see cref="FrameLogOptions.RecordSent"/> is off).</param>
/// <param name="FindingCount">How many findings the broker recorded on it.</param>
/// <param name="InternalError">Whether one of them is the broker's own failure ("internal-error", 541).</param>
/// <param name="EstimatedBytes">The memory its frame log held when it ended, as the retention budget counts it:
/// <see cref="RecordOverheadBytes"/> per frame held plus the payload bytes held, plus <see cref="ConnectionOverheadBytes"/>.
/// An estimate: allocator slack (such as a partly used buffer the payloads share) is not counted.</param>
public sealed record ConnectionSummary(long Id, DateTimeOffset AcceptedAt, DateTimeOffset EndedAt, ConnectionCloseInfo? CloseInfo,
    long Frames, long BytesReceived, long BytesSent, int FindingCount, bool InternalError, long EstimatedBytes)
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
        long received = -1, sent = -1, estimate = ConnectionOverheadBytes;
        // Read as facts, a batch at a time: making a record per frame just to add up sizes would cost more than the log.
        // The batch (~20 KiB) is pooled: a connection of a few frames should not pay for it on every end.
        var batch = ArrayPool<FrameFacts>.Shared.Rent(256);
        try
        {
            for (long next = 0; log.CopyFacts(next, batch) is var n and > 0; next = batch[n - 1].Sequence + 1)
            {
                foreach (var f in batch.AsSpan(0, n))
                {
                    estimate += RecordOverheadBytes + Math.Max(f.PayloadLength, 0);
                    if (f.Direction == FrameDirection.Received) received = f.WireOffset + f.WireLength;
                    else sent = f.WireOffset + f.WireLength;
                }
            }
        }
        finally
        {
            ArrayPool<FrameFacts>.Shared.Return(batch);
        }
        return new ConnectionSummary(connection.Id, log.StartedAt, endedAt, connection.CloseInfo, log.NextSequence,
            Math.Max(received, 0), Math.Max(sent, 0), findings.Count, findings.Any(f => f.Rule == InternalErrorRule), estimate);
    }

    /// <summary>The <see cref="ProtocolFinding.Rule"/> of the broker's own failures (reply code 541).</summary>
    public const string InternalErrorRule = "internal-error";
}
