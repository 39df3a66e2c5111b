using System.Buffers;
using System.Text.Json;
using F = AmqpConformance.Protocol.Recording.Export.JsonLinesFormat;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>
/// Writes frame logs as JSON Lines: one JSON object per line, each with a <c>"kind"</c> discriminator
/// (<c>log</c> opens a connection's log, then its <c>frame</c> and <c>finding</c> lines, and an <c>end</c> line
/// closes it). Every line carries <c>connectionId</c>, so the logs of several connections may interleave in one
/// file. The README section "Frame log: JSON Lines schema and pcap" is the schema.
/// </summary>
/// <remarks>
/// Thread-safe: each call writes one whole line under a lock, so concurrent writers never interleave within a line.
/// Lines are batched and handed to the stream in whole lines only (one <see cref="Stream.Write(ReadOnlySpan{byte})"/>
/// per batch of up to 64 KiB, or per line when longer), so a reader tailing an unbuffered file never sees half a
/// line; <see cref="Flush"/> hands over the batch and flushes the stream. The exporter owns the stream only when
/// <c>leaveOpen</c> is false.
/// </remarks>
public sealed class JsonLinesExporter : IDisposable
{
    private static readonly JsonWriterOptions WriterOptions = new() { Indented = false, SkipValidation = false };
    private readonly object _gate = new();
    private readonly Stream _output;
    private readonly bool _leaveOpen;
    private const int RetainedLineCapacity = 1 << 20;
    private const int BatchSize = 64 * 1024;
    private ArrayBufferWriter<byte> _line = new(256);
    private readonly ArrayBufferWriter<byte> _batch = new(BatchSize);
    private readonly Utf8JsonWriter _json;
    private bool _disposed;

    /// <summary>Writes to <paramref name="output"/>; disposes it on <see cref="Dispose"/> unless
    /// <paramref name="leaveOpen"/>.</summary>
    public JsonLinesExporter(Stream output, bool leaveOpen = false)
    {
        ArgumentNullException.ThrowIfNull(output);
        if (!output.CanWrite)
            throw new ArgumentException("The stream is not writable.", nameof(output));
        _output = output;
        _leaveOpen = leaveOpen;
        _json = new Utf8JsonWriter(_line, WriterOptions);
    }

    /// <summary>Writes the whole of each snapshot (log line, frames, findings, end line) to <paramref name="output"/>,
    /// one connection after the other, and flushes. The stream stays open.</summary>
    public static void Write(Stream output, IEnumerable<FrameLogSnapshot> snapshots)
    {
        ArgumentNullException.ThrowIfNull(snapshots);
        using var exporter = new JsonLinesExporter(output, leaveOpen: true);
        foreach (FrameLogSnapshot snapshot in snapshots)
            exporter.WriteSnapshot(snapshot);
        exporter.Flush();
    }

    /// <summary>Writes what <paramref name="log"/> holds now, as one complete connection, and flushes.</summary>
    public static void Write(Stream output, FrameLog log, string? endReason = null) =>
        Write(output, [FrameLogSnapshot.From(log, endReason, ended: true)]);

    /// <summary>Writes <paramref name="snapshots"/> to a new file at <paramref name="path"/> (replacing any).</summary>
    public static void WriteFile(string path, IEnumerable<FrameLogSnapshot> snapshots)
    {
        using var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, bufferSize: 1);
        Write(file, snapshots);
    }

    /// <summary>Writes one snapshot: its log line, frames, findings and, always, an end line.</summary>
    public void WriteSnapshot(FrameLogSnapshot snapshot)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        WriteLogStart(snapshot.ConnectionId, snapshot.StartedAt, snapshot.Options);
        foreach (FrameRecord frame in snapshot.Frames)
            WriteFrame(snapshot.ConnectionId, frame);
        foreach (ProtocolFinding finding in snapshot.Findings)
            WriteFinding(snapshot.ConnectionId, finding);
        WriteEnd(snapshot.ConnectionId, snapshot.EndReason, snapshot.Frames.Count, snapshot.Findings.Count);
    }

    /// <summary>Writes the <c>log</c> line that opens a connection's log. It must precede that connection's other
    /// lines.</summary>
    public void WriteLogStart(long connectionId, DateTimeOffset startedAt, FrameLogOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        WriteLine(json =>
        {
            json.WriteString(F.Kind, F.KindLog);
            json.WriteNumber(F.ConnectionId, connectionId);
            json.WriteString(F.Format, F.FormatName);
            json.WriteNumber(F.FormatVersion, F.Version);
            json.WriteString(F.StartedAt, startedAt);
            json.WriteStartObject(F.Options);
            json.WriteBoolean(F.CaptureBodies, options.CaptureBodies);
            json.WriteBoolean(F.RecordSent, options.RecordSent);
            json.WriteEndObject();
        });
    }

    /// <summary>Writes the <c>log</c> line for <paramref name="log"/>.</summary>
    public void WriteLogStart(FrameLog log)
    {
        ArgumentNullException.ThrowIfNull(log);
        WriteLogStart(log.ConnectionId, log.StartedAt, log.Options);
    }

    /// <summary>Writes one <c>frame</c> line.</summary>
    public void WriteFrame(long connectionId, FrameRecord frame)
    {
        ArgumentNullException.ThrowIfNull(frame);
        WriteLine(json =>
        {
            json.WriteString(F.Kind, F.KindFrame);
            json.WriteNumber(F.ConnectionId, connectionId);
            json.WriteNumber(F.Sequence, frame.Sequence);
            json.WriteString(F.Direction, F.DirectionName(frame.Direction));
            json.WriteNumber(F.WireOffset, frame.WireOffset);
            json.WriteNumber(F.Timestamp, F.Seconds(frame.Timestamp));
            json.WriteString(F.Type, F.TypeName(frame.Type));
            json.WriteNumber(F.Channel, frame.Channel);
            json.WriteNumber(F.Size, frame.Size);
            json.WriteNumber(F.WireLength, frame.WireLength);
            if (frame.ClassId != 0 || frame.MethodId != 0)
            {
                json.WriteNumber(F.ClassId, frame.ClassId);
                json.WriteNumber(F.MethodId, frame.MethodId);
            }
            if (frame.MethodName is { } name)
                json.WriteString(F.MethodName, name);
            if (frame.DeclaredBodySize is { } declared)
                json.WriteNumber(F.DeclaredBodySize, declared);
            if (frame.PayloadDigest is { } digest)
                json.WriteString(F.PayloadDigest, F.Digest(digest));
            if (frame.Payload is { } payload)
                json.WriteBase64String(F.Payload, payload.Span);
            json.WriteBoolean(F.FrameEndValid, frame.FrameEndValid);
        });
    }

    /// <summary>Writes one <c>finding</c> line.</summary>
    public void WriteFinding(long connectionId, ProtocolFinding finding)
    {
        ArgumentNullException.ThrowIfNull(finding);
        WriteLine(json =>
        {
            json.WriteString(F.Kind, F.KindFinding);
            json.WriteNumber(F.ConnectionId, connectionId);
            json.WriteNumber(F.Sequence, finding.Sequence);
            json.WriteNumber(F.ReplyCode, finding.ReplyCode);
            json.WriteString(F.Rule, finding.Rule);
            json.WriteString(F.Message, finding.Message);
            json.WriteBoolean(F.ClosedConnection, finding.ClosedConnection);
        });
    }

    /// <summary>Writes the <c>end</c> line: the connection's log is complete with <paramref name="frames"/> frame lines
    /// and <paramref name="findings"/> finding lines; <paramref name="reason"/> says why it ended, when
    /// known.</summary>
    public void WriteEnd(long connectionId, string? reason, int frames, int findings)
    {
        WriteLine(json =>
        {
            json.WriteString(F.Kind, F.KindEnd);
            json.WriteNumber(F.ConnectionId, connectionId);
            if (reason is not null)
                json.WriteString(F.Reason, reason);
            json.WriteNumber(F.Frames, frames);
            json.WriteNumber(F.Findings, findings);
        });
    }

    /// <summary>Pushes every line written so far to the underlying stream and flushes it.</summary>
    public void Flush()
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            WriteBatch();
            _output.Flush();
        }
    }

    /// <summary>Flushes, then disposes the stream unless the exporter was told to leave it open.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
                return;
            _disposed = true;
            _json.Dispose();
            try
            {
                WriteBatch();
                _output.Flush();
            }
            finally
            {
                if (!_leaveOpen)
                    _output.Dispose();
            }
        }
    }

    private void WriteLine(Action<Utf8JsonWriter> body)
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _line.ResetWrittenCount();
            _json.Reset(_line);
            _json.WriteStartObject();
            body(_json);
            _json.WriteEndObject();
            _json.Flush();
            _line.GetSpan(1)[0] = (byte)'\n';
            _line.Advance(1);
            if (_batch.WrittenCount + _line.WrittenCount > BatchSize)
                WriteBatch();
            if (_line.WrittenCount >= BatchSize)
                _output.Write(_line.WrittenSpan);
            else
                _batch.Write(_line.WrittenSpan);
            if (_line.Capacity > RetainedLineCapacity)
                _line = new ArrayBufferWriter<byte>(256); // do not keep a huge body's buffer
        }
    }

    private void WriteBatch()
    {
        if (_batch.WrittenCount == 0)
            return;
        _output.Write(_batch.WrittenSpan);
        _batch.ResetWrittenCount();
    }
}
