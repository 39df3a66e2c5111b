using System.Buffers;
using System.IO.Pipelines;
using System.Security.Cryptography;
using AmqpConformance.Harness.Protocol;
using AmqpConformance.Harness.Recording;

namespace AmqpConformance.FakeBroker;

public sealed partial class BrokerConnection
{
    private long _sentOffset;

    /// <summary>One thing for the writer loop to put on the wire, whole: a method (with its content, if any), a
    /// heartbeat, or raw bytes (the protocol header sent back on a version mismatch).</summary>
    private sealed record OutboundItem(ushort Channel, IAmqpMethod? Method, ReadOnlyMemory<byte> HeaderPayload,
        ReadOnlyMemory<byte> Body, bool Heartbeat = false, byte[]? Raw = null);

    /// <summary>Queues a method frame. Safe from any thread; dropped once the connection ended.</summary>
    internal void SendMethod(ushort channel, IAmqpMethod method) =>
        _outbound.Writer.TryWrite(new OutboundItem(channel, method, default, default));

    /// <summary>Queues a content-bearing method (basic.deliver, basic.get-ok, basic.return) with the message's
    /// header and body, split into body frames of this connection's frame_max - 8.</summary>
    internal void SendContent(ushort channel, IAmqpMethod method, DeliveredMessage message) =>
        _outbound.Writer.TryWrite(new OutboundItem(channel, method, message.HeaderPayload, message.Body));

    private void SendHeartbeat() => _outbound.Writer.TryWrite(new OutboundItem(0, null, default, default, Heartbeat: true));

    private void SendRaw(byte[] bytes) => _outbound.Writer.TryWrite(new OutboundItem(0, null, default, default, Raw: bytes));

    private async Task WriterLoopAsync()
    {
        PipeWriter output = _transport.Output;
        var reader = _outbound.Reader;
        try
        {
            while (await reader.WaitToReadAsync(_abort.Token).ConfigureAwait(false))
            {
                while (reader.TryRead(out var item))
                {
                    Write(output, item);
                    if (output.UnflushedBytes < 256 * 1024 && reader.TryPeek(out _)) continue;
                    var flush = await output.FlushAsync(_abort.Token).ConfigureAwait(false);
                    if (flush.IsCompleted || flush.IsCanceled) return;
                }
            }
        }
        catch (OperationCanceledException) when (_abort.IsCancellationRequested)
        {
            // aborted: whatever is still queued is dropped
        }
        catch (Exception ex) when (IsTransportFailure(ex))
        {
            // the peer is gone; the receive loop sees the same and ends the connection
            Abort();
        }
    }

    private void Write(PipeWriter output, OutboundItem item)
    {
        if (item.Raw is { } raw)
        {
            output.Write(raw);
            _sentOffset += raw.Length;
            return;
        }
        if (item.Heartbeat)
        {
            WriteFrame(output, FrameType.Heartbeat, 0, ReadOnlySpan<byte>.Empty);
            return;
        }
        byte[] payload = MethodCodec.ToPayload(item.Method!);
        WriteFrame(output, FrameType.Method, item.Channel, payload);
        if (!item.Method!.HasContent) return;
        WriteFrame(output, FrameType.Header, item.Channel, item.HeaderPayload.Span);
        int max = AmqpConstants.MaxBodyFramePayload(FrameMax);
        var body = item.Body;
        while (!body.IsEmpty)
        {
            int chunk = Math.Min(max, body.Length);
            WriteFrame(output, FrameType.Body, item.Channel, body.Span[..chunk]);
            body = body[chunk..];
        }
    }

    private void WriteFrame(PipeWriter output, FrameType type, ushort channel, ReadOnlySpan<byte> payload)
    {
        FrameFormat.WriteFrame(output, type, channel, payload);
        long offset = _sentOffset;
        _sentOffset += payload.Length + AmqpConstants.FrameOverhead;
        if (!Log.Options.RecordSent) return;
        ushort classId = 0, methodId = 0;
        string? name = null;
        long? declared = null;
        ulong? digest = null;
        ReadOnlyMemory<byte>? kept = null;
        switch (type)
        {
            case FrameType.Method:
                MethodCodec.TryReadIds(payload, out classId, out methodId);
                name = MethodCodec.NameOf(classId, methodId);
                kept = payload.ToArray();
                break;
            case FrameType.Header:
                ReadHeaderIds(payload, out classId, out declared);
                kept = payload.ToArray();
                break;
            case FrameType.Body:
                digest = Digest(payload);
                if (Log.Options.CaptureBodies) kept = payload.ToArray();
                break;
        }
        var timestamp = Log.Elapsed;
        int size = payload.Length;
        Log.Append(seq => new FrameRecord
        {
            Sequence = seq,
            Direction = FrameDirection.Sent,
            WireOffset = offset,
            Timestamp = timestamp,
            Type = type,
            Channel = channel,
            Size = size,
            ClassId = classId,
            MethodId = methodId,
            MethodName = name,
            DeclaredBodySize = declared,
            PayloadDigest = digest,
            Payload = kept,
        });
    }

    /// <summary>First 8 bytes, big-endian, of the SHA-256 of <paramref name="payload"/>.</summary>
    internal static ulong Digest(ReadOnlySpan<byte> payload)
    {
        Span<byte> hash = stackalloc byte[32];
        SHA256.HashData(payload, hash);
        return System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(hash);
    }

    private ulong Digest(in ReadOnlySequence<byte> payload)
    {
        if (payload.IsSingleSegment) return Digest(payload.FirstSpan);
        foreach (var segment in payload) _receiveHash.AppendData(segment.Span);
        Span<byte> hash = stackalloc byte[32];
        _receiveHash.GetHashAndReset(hash);
        return System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(hash);
    }

    private static void ReadHeaderIds(ReadOnlySpan<byte> payload, out ushort classId, out long? declaredBodySize)
    {
        classId = 0;
        declaredBodySize = null;
        if (payload.Length < 12) return;
        classId = System.Buffers.Binary.BinaryPrimitives.ReadUInt16BigEndian(payload);
        ulong size = System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(payload[4..]);
        declaredBodySize = (long)Math.Min(size, long.MaxValue);
    }

    private async Task HeartbeatLoopAsync(int seconds)
    {
        var interval = TimeSpan.FromSeconds(seconds);
        using var timer = new PeriodicTimer(interval);
        try
        {
            while (await timer.WaitForNextTickAsync(_abort.Token).ConfigureAwait(false))
            {
                if (_completion.Task.IsCompleted) return;
                var silent = System.Diagnostics.Stopwatch.GetElapsedTime(Interlocked.Read(ref _lastReceivedTimestamp));
                if (silent > interval * 2)
                {
                    Log.AddFinding(new ProtocolFinding(-1, 0, "missed-heartbeats",
                        $"Nothing arrived from the client for {silent.TotalSeconds:0.0} s, more than 2 heartbeat intervals of {seconds} s; " +
                        "the socket was closed without connection.close, as RabbitMQ does.", ClosedConnection: true));
                    SetCloseInfo(new ConnectionCloseInfo(CloseInitiator.Broker, 0,
                        $"missed heartbeats from client, timeout: {seconds}s", 0, 0));
                    Abort();
                    return;
                }
                SendHeartbeat();
            }
        }
        catch (OperationCanceledException)
        {
            // connection ended
        }
    }
}
