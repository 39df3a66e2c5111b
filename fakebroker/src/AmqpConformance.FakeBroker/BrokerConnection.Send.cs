using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker;

public sealed partial class BrokerConnection
{
    private long _sentOffset;

    /// <summary>When the writer loop last put a frame on the wire, heartbeats included (on the heartbeat
    /// clock).</summary>
    private long _lastSentTimestamp;

    /// <summary>One thing for the writer loop to put on the wire, whole: a method (with its content, if any), a
    /// heartbeat, or raw bytes (the protocol header sent back on a version mismatch). A heartbeat carries the last-sent
    /// timestamp its decision was based on (<paramref name="QuietSince"/>): the writer drops it if anything else went
    /// out since, so a frame queued just before it cannot make it a heartbeat on a busy connection. A publisher confirm
    /// (basic.ack) comes as its delivery tag and multiple flag (<paramref name="Ack"/>), with no method object. A value,
    /// so queueing one allocates nothing of its own.</summary>
    private readonly record struct OutboundItem(
        ushort Channel,
        IAmqpMethod? Method,
        ReadOnlyMemory<byte> HeaderPayload,
        ReadOnlyMemory<byte> Body,
        bool Heartbeat = false,
        byte[]? Raw = null,
        long QuietSince = 0,
        bool Ack = false,
        ulong AckTag = 0,
        bool AckMultiple = false
    );

    /// <summary>Queues a method frame. Safe from any thread; dropped once the connection ended.</summary>
    internal void SendMethod(ushort channel, IAmqpMethod method) =>
        _outbound.Writer.TryWrite(new OutboundItem(channel, method, default, default));

    /// <summary>Queues a content-bearing method (basic.deliver, basic.get-ok, basic.return) with the message's
    /// header and body, split into body frames of this connection's frame_max - 8.</summary>
    internal void SendContent(ushort channel, IAmqpMethod method, in MessageParts message) =>
        _outbound.Writer.TryWrite(new OutboundItem(channel, method, message.Head.Payload, message.Body));

    /// <summary>Queues a publisher confirm: basic.ack of <paramref name="deliveryTag"/> (and every earlier one, with
    /// <paramref name="multiple"/>), written as <see cref="BasicAck"/> would be, without making one.</summary>
    internal void SendAck(ushort channel, ulong deliveryTag, bool multiple) =>
        _outbound.Writer.TryWrite(
            new OutboundItem(channel, null, default, default, Ack: true, AckTag: deliveryTag, AckMultiple: multiple)
        );

    private void SendHeartbeat(long quietSince) =>
        _outbound.Writer.TryWrite(new OutboundItem(0, null, default, default, Heartbeat: true, QuietSince: quietSince));

    private void SendRaw(byte[] bytes) =>
        _outbound.Writer.TryWrite(new OutboundItem(0, null, default, default, Raw: bytes));

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
                    // Only this loop moves the last-sent timestamp, so the check and the write cannot race. A heartbeat
                    // moves it too: a timer tick that came late, followed by one on time, must not send two in a row.
                    if (!item.Heartbeat || item.QuietSince == Interlocked.Read(ref _lastSentTimestamp))
                    {
                        Write(output, item);
                        Interlocked.Exchange(ref _lastSentTimestamp, _clock.GetTimestamp());
                    }
                    // Several commands per flush while more are queued, up to 256 KiB.
                    if (output.UnflushedBytes < 256 * 1024)
                        continue;
                    var flush = await output.FlushAsync(_abort.Token).ConfigureAwait(false);
                    if (flush.IsCompleted || flush.IsCanceled)
                        return;
                }
                // Nothing more queued: what was written goes out. (The queue is not peeked to decide this: a peek marks
                // the channel's queue segment as observed, and such a segment is never reused, so every 32 commands
                // queued cost a new segment.)
                var last = await output.FlushAsync(_abort.Token).ConfigureAwait(false);
                if (last.IsCompleted || last.IsCanceled)
                    return;
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
        catch (Exception ex)
        {
            // A frame the broker cannot encode is its own bug: record it and end the connection (the socket closes),
            // rather than leave the peer waiting for frames that will never come.
            BrokerLog.InternalError(_logger, Id, "writing", ex);
            Log.AddFinding(
                new ProtocolFinding(
                    -1,
                    ReplyCodes.InternalError,
                    "internal-error",
                    $"The fake broker failed while writing to this connection: {ex}",
                    ClosedConnection: true
                )
            );
            SetCloseInfo(
                new ConnectionCloseInfo(
                    CloseInitiator.Broker,
                    ReplyCodes.InternalError,
                    ReplyText.Fit("INTERNAL_ERROR - " + ex.Message),
                    0,
                    0
                )
            );
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
        // One clock read per command: its frames go out together, and the log stores a timestamp once per run of equal
        // ones.
        var at = Log.Elapsed;
        if (item.Heartbeat)
        {
            WriteFrame(output, at, FrameType.Heartbeat, 0, ReadOnlyMemory<byte>.Empty);
            return;
        }
        if (item.Ack)
        {
            int length = WriteAckPayload(_methodPayload, item.AckTag, item.AckMultiple);
            WriteFrame(output, at, FrameType.Method, item.Channel, _methodPayload.AsMemory(0, length));
            return;
        }
        WriteFrame(output, at, FrameType.Method, item.Channel, MethodPayload(item.Method!));
        if (!item.Method!.HasContent)
            return;
        WriteFrame(output, at, FrameType.Header, item.Channel, item.HeaderPayload);
        int max = AmqpConstants.MaxBodyFramePayload(FrameMax);
        var body = item.Body;
        while (!body.IsEmpty)
        {
            int chunk = Math.Min(max, body.Length);
            WriteFrame(output, at, FrameType.Body, item.Channel, body[..chunk]);
            body = body[chunk..];
        }
    }

    /// <summary>The writer loop's buffer for a method's payload: the frame and the log copy it, so it is reused for the
    /// next method.</summary>
    private readonly byte[] _methodPayload = new byte[MethodPayloadBufferLength];

    private const int MethodPayloadBufferLength = 512;

    /// <summary><paramref name="method"/> encoded: in the writer loop's reused buffer when it fits (every ack, deliver
    /// and most others), else in an array of its own. Valid until the next call.</summary>
    private ReadOnlyMemory<byte> MethodPayload(IAmqpMethod method)
    {
        int length = MethodCodec.EncodedLength(method);
        if (length > MethodPayloadBufferLength)
            return MethodCodec.ToPayload(method);
        int written = MethodCodec.Encode(method, _methodPayload);
        return _methodPayload.AsMemory(0, written);
    }

    /// <summary>Writes basic.ack's payload (class and method ids, delivery tag, multiple bit) into
    /// <paramref name="destination"/>, the bytes <see cref="MethodCodec.Encode(IAmqpMethod, Span{byte})"/> writes for a
    /// <see cref="BasicAck"/> with these arguments; returns their count (13).</summary>
    internal static int WriteAckPayload(Span<byte> destination, ulong deliveryTag, bool multiple)
    {
        var writer = new AmqpWriter(destination);
        writer.WriteShort(BasicAck.ClassIdValue);
        writer.WriteShort(BasicAck.MethodIdValue);
        writer.WriteLongLong(deliveryTag);
        writer.WriteBit(multiple);
        writer.Flush();
        return writer.BytesWritten;
    }

    private void WriteFrame(
        PipeWriter output,
        TimeSpan at,
        FrameType type,
        ushort channel,
        ReadOnlyMemory<byte> payload
    )
    {
        FrameFormat.WriteFrame(output, type, channel, payload.Span);
        long offset = _sentOffset;
        _sentOffset += payload.Length + AmqpConstants.FrameOverhead;
        if (Log.Options.RecordSent)
            Log.Record(
                FrameDirection.Sent,
                offset,
                at,
                (byte)type,
                channel,
                payload.Length,
                new ReadOnlySequence<byte>(payload)
            );
    }

    private long _heartbeatTicks;

    /// <summary>How many timer ticks the heartbeat loop has decided on (sent a heartbeat or not): lets a test on a fake
    /// <see cref="FakeAmqpBrokerOptions.HeartbeatClock"/> know a tick was handled before it moves the clock on.</summary>
    internal long HeartbeatTicksHandled => Interlocked.Read(ref _heartbeatTicks);

    private readonly TaskCompletionSource _heartbeatArmed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes once the heartbeat loop has started its timer: on a fake clock, ticks count from
    /// then.</summary>
    internal Task HeartbeatArmed => _heartbeatArmed.Task;

    /// <summary>
    /// Heartbeats as RabbitMQ 3.x sends and expects them (measured against 3.10): every half interval the broker sends
    /// a heartbeat only if it wrote nothing (a heartbeat included) during that half interval, so a connection with
    /// other traffic sees none and two heartbeats are never closer than about half an interval; and it closes the
    /// socket, without connection.close, once nothing arrived for two whole intervals. Runs on
    /// <see cref="FakeAmqpBrokerOptions.HeartbeatClock"/>.
    /// </summary>
    private async Task HeartbeatLoopAsync(int seconds)
    {
        var interval = TimeSpan.FromSeconds(seconds);
        var half = interval / 2;
        using var timer = new PeriodicTimer(half, _clock);
        _heartbeatArmed.TrySetResult();
        try
        {
            while (await timer.WaitForNextTickAsync(_abort.Token).ConfigureAwait(false))
            {
                if (_completion.Task.IsCompleted)
                    return;
                var silent = _clock.GetElapsedTime(Interlocked.Read(ref _lastReceivedTimestamp));
                if (silent > interval * 2)
                {
                    Log.AddFinding(
                        new ProtocolFinding(
                            -1,
                            0,
                            "missed-heartbeats",
                            $"Nothing arrived from the client for {silent.TotalSeconds:0.0} s, more than 2 heartbeat intervals of {seconds} s; "
                                + "the socket was closed without connection.close, as RabbitMQ does.",
                            ClosedConnection: true
                        )
                    );
                    SetCloseInfo(
                        new ConnectionCloseInfo(
                            CloseInitiator.Broker,
                            0,
                            $"missed heartbeats from client, timeout: {seconds}s",
                            0,
                            0
                        )
                    );
                    BrokerLog.MissedHeartbeats(_logger, Id, silent.TotalSeconds, seconds);
                    Abort();
                    return;
                }
                // A little slack: the timer and the writer's clock reads are not exact.
                long lastSent = Interlocked.Read(ref _lastSentTimestamp);
                if (_clock.GetElapsedTime(lastSent) >= half - TimeSpan.FromMilliseconds(20))
                    SendHeartbeat(lastSent);
                Interlocked.Increment(ref _heartbeatTicks);
            }
        }
        catch (OperationCanceledException)
        {
            // connection ended
        }
    }
}
