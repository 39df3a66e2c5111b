using System.Buffers;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <content>Content assembly: a basic.publish's header and body frames gathered into one message (validated as they
/// come), routed when complete, and the publisher confirms that completion makes due.</content>
public sealed partial class BrokerConnection
{
    private readonly HashSet<ChannelState> _confirmsDue = [];
    private readonly RepeatedPayload<ContentHeader> _headers = new();
    private readonly RouteCache _routes = new();

    private FrameOutcome HandleHeaderFrame(in RawFrame frame)
    {
        if (!_channels.TryGetValue(frame.Channel, out var ch) || ch.Content is not { } pending)
            throw ContentWithoutMethod();
        if (pending.HeaderReceived)
            throw new ProtocolViolationException(
                ReplyCodes.UnexpectedFrame,
                "header-during-body",
                "expected content body, got non content body frame instead",
                pending.Method.ClassId,
                pending.Method.MethodId
            );
        // The header a publisher sent last time, if these are the same bytes: already decoded, and its array kept.
        bool repeated = _headers.TryGet(frame.Payload, out var header);
        byte[] payload = repeated ? _headers.Bytes : frame.Payload.ToArray();
        ushort classId = System.Buffers.Binary.BinaryPrimitives.ReadUInt16BigEndian(payload);
        ushort weight = System.Buffers.Binary.BinaryPrimitives.ReadUInt16BigEndian(payload.AsSpan(2));
        ulong bodySize = System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(payload.AsSpan(4));
        if (classId != pending.Method.ClassId || weight != 0 || bodySize > (ulong)_options.MaxPayloadWhenUnlimited)
            throw BadContentHeader(pending, classId, weight, bodySize);
        if (!repeated)
        {
            try
            {
                header = ContentHeader.Decode(payload);
            }
            catch (AmqpDecodeException ex)
            {
                throw new ProtocolViolationException(
                    ReplyCodes.FrameError,
                    "undecodable-content-header",
                    $"cannot decode content header properties ({ex.Message})",
                    pending.Method.ClassId,
                    pending.Method.MethodId
                );
            }
            _headers.Remember(payload, header);
        }
        pending.SetHeader(header, payload);
        if (pending.IsComplete)
            CompleteContent(ch);
        return FrameOutcome.Continue;
    }

    private FrameOutcome HandleBodyFrame(long sequence, in RawFrame frame)
    {
        if (!_channels.TryGetValue(frame.Channel, out var ch) || ch.Content is not { } pending)
            throw ContentWithoutMethod();
        if (!pending.HeaderReceived)
            throw BodyWithoutHeader(pending);
        bool overranBefore = pending.Overran;
        if (!pending.TryTakeWhole(frame.Payload))
            pending.Append(frame.Payload);
        if (Strict)
        {
            if (pending.Overran && !overranBefore)
                ReportBodyOverrun(sequence, ch.Number, pending);
            // At frame_max 0 (unlimited) a body fits one frame (MaxPayloadWhenUnlimited bounds both), so any non-final
            // one is short.
            else if (
                !pending.IsComplete
                && !pending.Overran
                && (FrameMax == 0 || frame.ClaimedSize != FrameMax - AmqpConstants.FrameOverhead)
            )
                ReportBodyFrameNotFull(sequence, ch.Number, frame.ClaimedSize);
        }
        if (pending.IsComplete)
            CompleteContent(ch);
        return FrameOutcome.Continue;
    }

    // Violations and reports are built out of line: inlined, their interpolated strings made the frame handlers clear
    // hundreds of bytes of stack on every frame.

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ProtocolViolationException ContentWithoutMethod() =>
        new(
            ReplyCodes.UnexpectedFrame,
            "content-without-method",
            "expected method frame, got non method frame instead",
            0,
            0
        );

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ProtocolViolationException BodyWithoutHeader(PendingContent pending) =>
        new(
            ReplyCodes.UnexpectedFrame,
            "body-without-header",
            $"expected content header for class {pending.Method.ClassId}, got non content header frame instead",
            pending.Method.ClassId,
            pending.Method.MethodId
        );

    /// <summary>The violation a content header's fixed fields make (checked in this order: class, weight, body
    /// size).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ProtocolViolationException BadContentHeader(
        PendingContent pending,
        ushort classId,
        ushort weight,
        ulong bodySize
    )
    {
        if (classId != pending.Method.ClassId)
            return new ProtocolViolationException(
                ReplyCodes.UnexpectedFrame,
                "header-wrong-class",
                $"expected content header for class {pending.Method.ClassId}, got one for class {classId} instead",
                pending.Method.ClassId,
                pending.Method.MethodId
            );
        if (weight != 0)
            return new ProtocolViolationException(
                ReplyCodes.UnexpectedFrame,
                "header-nonzero-weight",
                $"expected content header for class {pending.Method.ClassId}, got non content header frame instead (weight {weight})",
                pending.Method.ClassId,
                pending.Method.MethodId
            );
        return new ProtocolViolationException(
            ReplyCodes.FrameError,
            "body-size-too-large",
            $"content body size {bodySize} exceeds maximum allowed size {_options.MaxPayloadWhenUnlimited}",
            pending.Method.ClassId,
            pending.Method.MethodId
        );
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportBodyOverrun(long sequence, ushort channel, PendingContent pending) =>
        Report(
            sequence,
            ReplyCodes.UnexpectedFrame,
            "body-exceeds-declared-size",
            $"Body frames on channel {channel} carry {pending.Received} bytes but the content header declared {pending.DeclaredSize}; "
                + "RabbitMQ 3.x keeps waiting and closes with 505 on the channel's next non-body frame."
        );

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportBodyFrameNotFull(long sequence, ushort channel, long size) =>
        Report(
            sequence,
            ReplyCodes.FrameError,
            "body-frame-not-full",
            FrameMax == 0
                ? $"A non-final body frame on channel {channel} carries {size} bytes; frame_max is 0 (unlimited), so a body is one body frame."
                : $"A non-final body frame on channel {channel} carries {size} bytes, not frame_max - 8 = {FrameMax - AmqpConstants.FrameOverhead}."
        );

    /// <summary>Where this connection's published messages keep their small bodies.</summary>
    private readonly BodySlab _bodySlab = new();

    private void StartContent(ChannelState ch, BasicPublish method, long sequence)
    {
        ch.Content = (ch.SpareContent ?? new PendingContent()).Start(method, sequence);
        ch.SpareContent = null;
        _midContentCount++;
    }

    private void CompleteContent(ChannelState ch)
    {
        var content = ch.Content!;
        ch.Content = null;
        _midContentCount--;
        if (ch.Closing)
        {
            content.TakeBody(keep: false, poolable: false, slab: null, out _); // nobody reads it: the buffer goes back to its pool
            return;
        }
        var publish = content.Method;
        _currentMethod = publish;
        if (publish.Immediate)
            throw new ProtocolViolationException(ReplyCodes.NotImplemented, "immediate-flag", "immediate=true");
        ulong? confirm = ch.ConfirmMode ? ch.NextConfirmSequence++ : null;
        var host = Host!;
        var queues = _routes.Route(host, publish.Exchange, publish.RoutingKey, content.Header!.Properties.Headers);
        if (queues.Count > 0 || publish.Mandatory || _options.KeepPublished)
        {
            // Only a message that goes to queues alone can have its body array come back to the pool when they drop it;
            // one kept in Published or returned to the publisher is out in the world for good.
            bool poolable = queues.Count > 0 && !_options.KeepPublished;
            // Somebody will read this message (a queue, the publisher's basic.return, or Published): keep its parts. An
            // instance is made only for Published, and then shared by its queues; queues keep the parts alone.
            IReadOnlyList<string> routedTo = queues.Count == 1 ? queues[0].NameAsRoutedTo : RoutedTo(queues);
            var message = new MessageParts(
                OriginOf(ch, publish, confirm.HasValue, routedTo),
                HeadOf(content.Header.Properties, content.HeaderPayload),
                content.TakeBody(keep: true, poolable, _bodySlab, out PooledBody? storage),
                confirm ?? 0,
                content.MethodSequence
            );
            DeliveredMessage? kept = AddPublished(message);
            if (queues.Count == 0 && publish.Mandatory)
                SendContent(
                    ch.Number,
                    new BasicReturn
                    {
                        ReplyCode = ReplyCodes.NoRoute,
                        ReplyText = "NO_ROUTE",
                        Exchange = publish.Exchange,
                        RoutingKey = publish.RoutingKey,
                    },
                    message
                );
            if (queues.Count > 0)
                host.Enqueue(message, kept, queues, storage);
        }
        else
        {
            content.TakeBody(keep: false, poolable: false, slab: null, out _); // unroutable and unread: the body buffer goes back to the pool
        }
        ch.SpareContent = content; // nothing refers to it any more: the next publish on the channel reuses it
        if (confirm is { } seq)
        {
            ch.PendingConfirmUpTo = seq;
            ch.PendingConfirmCount++;
            _confirmsDue.Add(ch);
        }
    }

    /// <summary>The channel's last origin when this publish agrees with it, else a new one that becomes the
    /// last.</summary>
    private PublishOrigin OriginOf(
        ChannelState ch,
        BasicPublish publish,
        bool confirming,
        IReadOnlyList<string> routedTo
    )
    {
        if (
            ch.LastOrigin is { } last
            && last.Matches(publish.Exchange, publish.RoutingKey, publish.Mandatory, confirming, routedTo)
        )
            return last;
        return ch.LastOrigin = new PublishOrigin(
            Id,
            ch.Number,
            publish.Exchange,
            publish.RoutingKey,
            publish.Mandatory,
            confirming,
            routedTo
        );
    }

    /// <summary>The last message's content head when this one's header is the same decoded instance and array (a
    /// repeated header, see <see cref="RepeatedPayload{T}"/>), else a new one that becomes the last.</summary>
    private ContentHead HeadOf(BasicProperties properties, byte[] payload)
    {
        // ReadOnlyMemory's equality is the same array, offset and length: the whole of this payload array.
        if (_lastHead is { } last && ReferenceEquals(last.Properties, properties) && last.Payload.Equals(payload))
            return last;
        return _lastHead = new ContentHead(properties, payload);
    }

    private ContentHead? _lastHead;

    /// <summary>The names of <paramref name="queues"/>, in routing order, as a message's
    /// <see cref="DeliveredMessage.RoutedTo"/>.</summary>
    private static string[] RoutedTo(IReadOnlyList<BrokerQueue> queues)
    {
        var names = new string[queues.Count];
        for (int i = 0; i < names.Length; i++)
            names[i] = queues[i].Name;
        return names;
    }

    /// <summary>Sends the publisher confirms due after a read batch: one basic.ack per publish, or one with
    /// multiple=true covering them all when <see cref="FakeAmqpBrokerOptions.CoalesceConfirms"/> is on.</summary>
    private void FlushConfirms()
    {
        if (_confirmsDue.Count == 0)
            return;
        foreach (var ch in _confirmsDue)
        {
            if (ch.PendingConfirmCount == 0 || ch.Closing || ch.Closed)
                continue;
            if (_options.CoalesceConfirms && ch.PendingConfirmCount > 1)
            {
                SendAck(ch.Number, ch.PendingConfirmUpTo, multiple: true);
            }
            else
            {
                for (
                    ulong tag = ch.PendingConfirmUpTo - (ulong)ch.PendingConfirmCount + 1;
                    tag <= ch.PendingConfirmUpTo;
                    tag++
                )
                    SendAck(ch.Number, tag, multiple: false);
            }
            ch.PendingConfirmCount = 0;
        }
        _confirmsDue.Clear();
    }
}
