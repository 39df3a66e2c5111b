using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Text;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker;

public sealed partial class BrokerConnection
{
    private readonly ChannelTable _channels = new();

    /// <summary>How many open channels have a content command under way (their <see cref="ChannelState.Content"/> set):
    /// counted, not listed, so that starting and completing a publish costs no set operations.</summary>
    private int _midContentCount;
    private long _receivedOffset;
    private Task _heartbeatLoop = Task.CompletedTask;

    /// <summary>What the receive loop does after a frame.</summary>
    private enum FrameOutcome
    {
        /// <summary>Read on.</summary>
        Continue,

        /// <summary>Stop parsing: discard input until the peer closes or the close timeout passes.</summary>
        Drain,

        /// <summary>End the connection now (queued frames still go out).</summary>
        Stop,
    }

    /// <summary>The payload size above which a frame is refused with 501, as RabbitMQ decides it: frame_max itself
    /// (RabbitMQ allows 8 bytes of slack over frame_max - 8), or the hard cap when frame_max is 0.</summary>
    private long MaxAcceptedPayload => FrameMax == 0 ? _options.MaxPayloadWhenUnlimited : FrameMax;

    private bool Strict => _options.Strictness == Strictness.Strict;

    /// <summary>Reads and handles frames until the connection ends; returns the heartbeat loop to await.</summary>
    private async Task<Task> ReceiveLoopAsync()
    {
        PipeReader input = _transport.Input;
        if (!await ReadProtocolHeaderAsync(input).ConfigureAwait(false))
            return _heartbeatLoop;

        SendMethod(
            0,
            new ConnectionStart
            {
                VersionMajor = 0,
                VersionMinor = 9,
                ServerProperties = BuildServerProperties(),
                Mechanisms = "PLAIN AMQPLAIN",
                Locales = "en_US",
            }
        );

        bool draining = false;
        while (true)
        {
            ReadResult result = await input.ReadAsync(_abort.Token).ConfigureAwait(false);
            var buffer = result.Buffer;
            if (draining)
            {
                input.AdvanceTo(buffer.End);
                if (result.IsCompleted)
                    return _heartbeatLoop;
                continue;
            }
            Interlocked.Exchange(ref _lastReceivedTimestamp, _clock.GetTimestamp());
            _readAt = Log.Elapsed;
            var frames = new FrameCursor(buffer);
            var outcome = HandleFrames(ref frames);
            buffer = frames.Remaining;
            FlushConfirms();
            if (outcome == FrameOutcome.Stop)
            {
                input.AdvanceTo(buffer.End);
                return _heartbeatLoop;
            }
            if (outcome == FrameOutcome.Drain)
            {
                draining = true;
                input.AdvanceTo(buffer.End);
                if (result.IsCompleted)
                    return _heartbeatLoop;
                continue;
            }
            RememberPartialFrame(buffer);
            input.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted)
            {
                ReportTruncatedFrame("the client closed its side of the stream");
                SetCloseInfo(
                    new ConnectionCloseInfo(
                        CloseInitiator.Transport,
                        0,
                        "the client closed the transport without connection.close",
                        0,
                        0
                    )
                );
                return _heartbeatLoop;
            }
        }
    }

    /// <summary>Handles the whole frames one read brought, recording them in one batch of the log (one take of its
    /// lock, not one per frame); stops at the first incomplete frame or at an outcome other than
    /// <see cref="FrameOutcome.Continue"/>.</summary>
    private FrameOutcome HandleFrames(ref FrameCursor frames)
    {
        var outcome = FrameOutcome.Continue;
        using var batch = Log.BeginBatch();
        _batch = batch;
        try
        {
            while (outcome == FrameOutcome.Continue)
            {
                var status = frames.TryRead(MaxAcceptedPayload, out var frame);
                if (status == FrameReadStatus.NeedMoreData)
                    break;
                outcome = HandleFrame(status, frame);
            }
        }
        finally
        {
            _batch = default;
        }
        return outcome;
    }

    /// <summary>Reads the 8-byte protocol header; on a mismatch answers with "AMQP" 0 0 9 1 and returns
    /// false.</summary>
    private async Task<bool> ReadProtocolHeaderAsync(PipeReader input)
    {
        while (true)
        {
            ReadResult result = await input.ReadAsync(_abort.Token).ConfigureAwait(false);
            var buffer = result.Buffer;
            var status = ProtocolHeaderCheck.Inspect(buffer);
            if (status == ProtocolHeaderStatus.Amqp091)
            {
                input.AdvanceTo(buffer.GetPosition(ProtocolHeaderCheck.Length));
                _receivedOffset = ProtocolHeaderCheck.Length;
                return true;
            }
            if (status == ProtocolHeaderStatus.NeedMoreData)
            {
                input.AdvanceTo(buffer.Start, buffer.End);
                if (!result.IsCompleted)
                    continue;
                SetCloseInfo(
                    new ConnectionCloseInfo(
                        CloseInitiator.Transport,
                        0,
                        "the client closed the transport before sending a protocol header",
                        0,
                        0
                    )
                );
                return false;
            }
            int shown = (int)Math.Min(buffer.Length, ProtocolHeaderCheck.Length);
            string got = OctetText.Quoted(buffer.Slice(0, shown).ToArray());
            input.AdvanceTo(buffer.End);
            Log.AddFinding(
                new ProtocolFinding(
                    -1,
                    0,
                    "bad-protocol-header",
                    $"The client did not start with \"AMQP\" 0 0 9 1 but with {got}; the broker answered with its own header and closed the socket, as RabbitMQ does.",
                    ClosedConnection: true
                )
            );
            SetCloseInfo(new ConnectionCloseInfo(CloseInitiator.Broker, 0, $"bad protocol header {got}", 0, 0));
            BrokerLog.BadProtocolHeader(_logger, Id, got);
            SendRaw(AmqpConstants.ProtocolHeader.ToArray());
            return false;
        }
    }

    private FieldTable BuildServerProperties()
    {
        var capabilities = new FieldTable
        {
            ["publisher_confirms"] = true,
            ["exchange_exchange_bindings"] = true,
            ["basic.nack"] = true,
            ["consumer_cancel_notify"] = true,
            ["connection.blocked"] = true,
            ["authentication_failure_close"] = true,
            ["per_consumer_qos"] = true,
            ["direct_reply_to"] = true,
        };
        var table = new FieldTable
        {
            ["capabilities"] = FieldValue.Table(capabilities),
            ["product"] = FieldValue.LongString("AmqpConformance FakeBroker"),
            ["version"] = FieldValue.LongString(typeof(FakeAmqpBroker).Assembly.GetName().Version?.ToString() ?? "0"),
            ["platform"] = FieldValue.LongString(".NET " + Environment.Version),
            ["information"] = FieldValue.LongString(
                "An in-process AMQP 0-9-1 broker for frame-writer conformance tests."
            ),
        };
        foreach (var (key, value) in _options.ServerProperties)
            table = table.With(key, FieldValue.FromObject(value));
        return table;
    }

    // ------------------------------------------------------------------ per frame

    private FrameOutcome HandleFrame(FrameReadStatus status, in RawFrame frame)
    {
        long sequence = Record(status, frame);
        if (_closing)
            return HandleWhileClosing(status, frame);
        try
        {
            if (status == FrameReadStatus.PayloadTooLarge)
                throw FrameTooLarge(frame);
            if (status == FrameReadStatus.BadFrameEnd)
                throw BadFrameEnd(frame);
            if (Strict && FrameMax != 0 && frame.ClaimedSize + AmqpConstants.FrameOverhead > FrameMax)
                ReportOverFrameMax(sequence, frame);
            return Dispatch(sequence, frame);
        }
        catch (ProtocolViolationException violation)
        {
            return OnViolation(sequence, frame.Channel, violation);
        }
        catch (AmqpDecodeException decode)
        {
            ushort cls = 0,
                mth = 0;
            if (frame.Type == FrameType.Method)
                MethodCodec.TryReadIds(
                    frame.Payload.IsSingleSegment ? frame.Payload.FirstSpan : frame.Payload.ToArray(),
                    out cls,
                    out mth
                );
            return OnViolation(
                sequence,
                frame.Channel,
                new ProtocolViolationException(
                    ReplyCodes.FrameError,
                    "undecodable-method",
                    $"cannot decode {Snippet(frame.Payload)} ({decode.Message})",
                    cls,
                    mth,
                    closeSocketOnly: !IsTuned
                )
            );
        }
        finally
        {
            _currentMethod = null;
        }
    }

    // Violations are built out of line (here and in the frame handlers): inlined, their interpolated strings made the
    // hot methods clear hundreds of bytes of stack on every frame.

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ProtocolViolationException FrameTooLarge(in RawFrame frame) =>
        new(
            ReplyCodes.FrameError,
            "frame-too-large",
            $"type {frame.TypeOctet}, channel {frame.Channel}: frame_too_large, payload of {frame.ClaimedSize} octets claimed, at most {MaxAcceptedPayload} accepted (frame_max {FrameMax})",
            lostSync: true,
            closeSocketOnly: !IsTuned
        );

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ProtocolViolationException BadFrameEnd(in RawFrame frame) =>
        new(
            ReplyCodes.FrameError,
            "bad-frame-end",
            $"type {frame.TypeOctet}, {Snippet(frame.Payload)}: invalid_frame_end_marker 0x{frame.EndOctet:x2} (expected 0xce)",
            lostSync: true,
            closeSocketOnly: !IsTuned
        );

    private IAmqpMethod? _currentMethod;

    /// <summary>Validates and handles a well-framed frame. The usual one (a method, a content header of at least 12
    /// bytes, or a body, on an open connection's channel 1..n) goes to its channel's handler; every other is handled or
    /// refused by <see cref="HandleUnusual"/>, with the checks in RabbitMQ's order.</summary>
    private FrameOutcome Dispatch(long sequence, in RawFrame frame)
    {
        byte type = frame.TypeOctet;
        bool usual =
            frame.Channel != 0
            && Host is not null
            && type switch
            {
                (byte)FrameType.Method or (byte)FrameType.Body => true,
                (byte)FrameType.Header => frame.ClaimedSize >= 12,
                _ => false,
            };
        if (!usual)
            return HandleUnusual(sequence, frame);
        if (Strict)
            CheckInterleaving(sequence, frame.Channel);
        return type switch
        {
            (byte)FrameType.Method => HandleChannelMethodFrame(sequence, frame),
            (byte)FrameType.Header => HandleHeaderFrame(frame),
            _ => HandleBodyFrame(sequence, frame),
        };
    }

    /// <summary>Handles or refuses a well-framed frame that <see cref="Dispatch"/> does not take to a channel's
    /// handler: a heartbeat, an unknown type, a content header under 12 bytes, anything on channel 0, a channel frame
    /// before connection.open-ok. The interleaving check comes where it comes for a usual frame: after the frame's own
    /// shape.</summary>
    private FrameOutcome HandleUnusual(long sequence, in RawFrame frame)
    {
        byte type = frame.TypeOctet;
        if (type == (byte)FrameType.Heartbeat)
        {
            if (frame.ClaimedSize != 0)
                throw new ProtocolViolationException(
                    ReplyCodes.FrameError,
                    "unknown-frame-type",
                    $"type 8, {Snippet(frame.Payload)}: unknown_frame (a heartbeat frame must be empty)"
                );
            if (frame.Channel != 0)
                throw new ProtocolViolationException(
                    ReplyCodes.UnexpectedFrame,
                    "heartbeat-on-channel",
                    $"type 8, no octets (heartbeat on channel {frame.Channel}; heartbeats belong on channel 0)"
                );
            return FrameOutcome.Continue;
        }
        if (type is not ((byte)FrameType.Method or (byte)FrameType.Header or (byte)FrameType.Body))
            throw new ProtocolViolationException(
                ReplyCodes.FrameError,
                "unknown-frame-type",
                $"type {type}, {Snippet(frame.Payload)}: unknown_frame",
                closeSocketOnly: !IsTuned
            );
        if (type == (byte)FrameType.Header && frame.ClaimedSize < 12)
            throw new ProtocolViolationException(
                ReplyCodes.FrameError,
                "unknown-frame-type",
                $"type 2, {Snippet(frame.Payload)}: unknown_frame (a content header needs at least 12 bytes)"
            );

        if (Strict)
            CheckInterleaving(sequence, frame.Channel);

        if (frame.Channel == 0)
        {
            if (type != (byte)FrameType.Method)
                throw new ProtocolViolationException(
                    ReplyCodes.UnexpectedFrame,
                    "content-on-channel-zero",
                    $"type {type}, {Snippet(frame.Payload)} (content frames cannot go on channel 0)",
                    closeSocketOnly: !IsTuned
                );
            var method = DecodeMethod(frame.Payload);
            _currentMethod = method;
            return HandleConnectionMethod(method);
        }
        if (Host is null)
            throw new ProtocolViolationException(
                ReplyCodes.UnexpectedFrame,
                "frame-before-open",
                $"type {type}, {Snippet(frame.Payload)} (channel {frame.Channel} frame before connection.open-ok)",
                closeSocketOnly: !IsTuned
            );
        throw new UnreachableException(
            $"a type {type} frame on channel {frame.Channel} passed every check: Dispatch takes such frames to their handler"
        );
    }

    /// <summary>Decodes a method; an unknown class/method id ends the connection without connection.close, which is
    /// what RabbitMQ 3.x does (its reader crashes on the lookup).</summary>
    private static IAmqpMethod DecodeMethod(in ReadOnlySequence<byte> payload)
    {
        Span<byte> ids = stackalloc byte[4];
        if (payload.Length >= 4)
        {
            payload.Slice(0, 4).CopyTo(ids);
            MethodCodec.TryReadIds(ids, out ushort cls, out ushort mth);
            if (MethodCodec.NameOf(cls, mth) is null)
                throw new ProtocolViolationException(
                    ReplyCodes.NotImplemented,
                    "unknown-method",
                    $"unknown method {cls}/{mth}; RabbitMQ 3.x drops the socket without connection.close, and so does the fake broker",
                    cls,
                    mth,
                    closeSocketOnly: true
                );
        }
        return MethodCodec.Decode(payload);
    }

    /// <summary>While the broker's connection.close is out, only close-ok (or a crossing close) matters, as in
    /// RabbitMQ.</summary>
    private FrameOutcome HandleWhileClosing(FrameReadStatus status, in RawFrame frame)
    {
        if (status != FrameReadStatus.Frame)
            return FrameOutcome.Drain;
        if (frame.Channel != 0 || frame.TypeOctet != (byte)FrameType.Method)
            return FrameOutcome.Continue;
        IAmqpMethod method;
        try
        {
            method = MethodCodec.Decode(frame.Payload);
        }
        catch (AmqpDecodeException)
        {
            return FrameOutcome.Continue;
        }
        switch (method)
        {
            case ConnectionCloseOk:
                return FrameOutcome.Stop;
            case ConnectionClose:
                SendMethod(0, new ConnectionCloseOk());
                return FrameOutcome.Stop;
            default:
                return FrameOutcome.Continue;
        }
    }

    /// <summary>Records the finding and closes the channel or the connection as the violation says.</summary>
    private FrameOutcome OnViolation(long sequence, ushort channel, ProtocolViolationException v)
    {
        ushort cls = v.ClassId ?? _currentMethod?.ClassId ?? 0;
        ushort mth = v.MethodId ?? _currentMethod?.MethodId ?? 0;
        string text = ReplyText.Fit(v.ReplyText);
        FlushConfirms(); // publishes completed before the violation are still confirmed, before the close
        if (v.ChannelOnly && channel != 0 && _channels.TryGetValue(channel, out var ch))
        {
            Log.AddFinding(
                new ProtocolFinding(
                    sequence,
                    v.ReplyCode,
                    v.Rule,
                    $"Channel {channel} closed: {v.ReplyText}",
                    ClosedConnection: true
                )
            );
            BrokerLog.ProtocolViolation(
                _logger,
                Id,
                v.ReplyCode,
                v.Rule,
                sequence,
                $"closing channel {channel}",
                v.ReplyText
            );
            CloseChannel(ch, v.ReplyCode, text, cls, mth);
            return FrameOutcome.Continue;
        }
        Log.AddFinding(
            new ProtocolFinding(
                sequence,
                v.ReplyCode,
                v.Rule,
                v.CloseSocketOnly
                    ? $"Socket closed without connection.close (as RabbitMQ 3.x does here): {v.ReplyText}"
                    : $"Connection closed: {v.ReplyText}",
                ClosedConnection: true
            )
        );
        BrokerLog.ProtocolViolation(
            _logger,
            Id,
            v.ReplyCode,
            v.Rule,
            sequence,
            v.CloseSocketOnly ? "closing the socket without connection.close" : "closing the connection",
            v.ReplyText
        );
        if (v.CloseSocketOnly)
        {
            SetCloseInfo(new ConnectionCloseInfo(CloseInitiator.Broker, 0, v.ReplyText, cls, mth));
            return FrameOutcome.Stop;
        }
        if (BeginClose(new ConnectionCloseInfo(CloseInitiator.Broker, v.ReplyCode, text, cls, mth)))
            SendMethod(
                0,
                new ConnectionClose
                {
                    ReplyCode = v.ReplyCode,
                    ReplyText = text,
                    FailingClassId = cls,
                    FailingMethodId = mth,
                }
            );
        return v.LostSync ? FrameOutcome.Drain : FrameOutcome.Continue;
    }

    // ------------------------------------------------------------------ recording

    /// <summary>When the current read's bytes came (on the log's clock): the timestamp of every frame in them, so the
    /// clock is read once per read, not once per frame.</summary>
    private TimeSpan _readAt;

    /// <summary>The log batch of the read being handled (<see cref="HandleFrames"/>); every received frame is recorded
    /// through it.</summary>
    private FrameLogBatch _batch;

    /// <remarks>Not inlined: inlined, the log's append made <see cref="HandleFrame"/> a 4.8 KB method that cleared
    /// ~400 bytes of stack on every call.</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private long Record(FrameReadStatus status, in RawFrame frame)
    {
        long offset = _receivedOffset;
        _receivedOffset += frame.WireLength;
        return _batch.Record(
            FrameDirection.Received,
            offset,
            _readAt,
            frame.TypeOctet,
            frame.Channel,
            frame.Size,
            frame.Payload,
            payloadPresent: status != FrameReadStatus.PayloadTooLarge,
            frameEndValid: status != FrameReadStatus.BadFrameEnd
        );
    }

    private static string FrameTypeName(byte type) =>
        type switch
        {
            1 => "method",
            2 => "content header",
            3 => "body",
            8 => "heartbeat",
            _ => "type-" + type.ToString(CultureInfo.InvariantCulture),
        };

    /// <summary>"all 5 octets = 00 3c 00 28 00" or "first 16 of 4100 octets = ...": the payload's first bytes in
    /// hex.</summary>
    private static string Snippet(in ReadOnlySequence<byte> payload) => OctetText.Describe(payload);
}
