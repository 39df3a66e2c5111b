using System.Buffers;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <content>Channel state: method frames on channels 1..n, opening and closing channels, and the channel methods
/// themselves (declarations, bindings, consumers, gets, acknowledgements, confirms, qos).</content>
public sealed partial class BrokerConnection
{
    // ------------------------------------------------------------------ frames on channels 1..n

    private FrameOutcome HandleChannelMethodFrame(long sequence, in RawFrame frame)
    {
        _channels.TryGetValue(frame.Channel, out var ch);
        // RabbitMQ's command assembler: a method while content is due is out of sequence.
        if (ch?.Content is { } pending)
            throw MethodDuringContent(pending);
        var method = DecodeChannelMethod(frame.Payload);
        _currentMethod = method;
        if (ch is null)
        {
            if (method is ChannelOpen)
                return OpenChannel(sequence, frame.Channel);
            throw new ProtocolViolationException(
                ReplyCodes.ChannelError,
                "channel-not-open",
                "expected 'channel.open'"
            );
        }
        if (ch.Closing)
        {
            // After the broker's channel.close only close-ok (or a crossing close) counts, as in RabbitMQ.
            if (method is ChannelCloseOk)
                RemoveChannel(ch);
            else if (method is ChannelClose)
                SendMethod(ch.Number, new ChannelCloseOk());
            else if (method.HasContent)
                StartContent(ch, (method as BasicPublish) ?? new BasicPublish(), sequence);
            return FrameOutcome.Continue;
        }
        HandleChannelMethod(ch, method, sequence);
        return FrameOutcome.Continue;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ProtocolViolationException MethodDuringContent(PendingContent pending) =>
        new(
            ReplyCodes.UnexpectedFrame,
            "method-during-content",
            pending.HeaderReceived
                ? "expected content body, got non content body frame instead"
                : $"expected content header for class {pending.Method.ClassId}, got non content header frame instead",
            pending.Method.ClassId,
            pending.Method.MethodId
        );

    /// <summary>Decodes a method on a channel; a basic.publish with the same bytes as the last one decoded is not
    /// decoded again but shared (see <see cref="RepeatedPayload{T}"/>).</summary>
    private IAmqpMethod DecodeChannelMethod(in ReadOnlySequence<byte> payload)
    {
        if (_publishes.TryGet(payload, out var repeated))
            return repeated;
        var method = DecodeMethod(payload);
        if (method is BasicPublish publish && payload.Length <= RepeatedPayload<BasicPublish>.MaxKept)
            _publishes.Remember(payload.ToArray(), publish);
        return method;
    }

    private readonly RepeatedPayload<BasicPublish> _publishes = new();

    // ------------------------------------------------------------------ channel lifecycle

    private FrameOutcome OpenChannel(long sequence, ushort number)
    {
        if (ChannelMax != 0 && _channels.Count >= ChannelMax)
            throw new ProtocolViolationException(
                ReplyCodes.NotAllowed,
                "channel-max-reached",
                $"number of channels opened ({_channels.Count}) has reached the negotiated channel_max ({ChannelMax})",
                0,
                0
            );
        if (Strict && ChannelMax != 0 && number > ChannelMax)
            Report(
                sequence,
                ReplyCodes.ChannelError,
                "channel-number-above-channel-max",
                $"channel.open on channel {number}, above the negotiated channel_max {ChannelMax}; RabbitMQ 3.x only limits how many are open."
            );
        _channels[number] = new ChannelState(this, number);
        SendMethod(number, new ChannelOpenOk());
        return FrameOutcome.Continue;
    }

    /// <summary>Closes a channel from the broker's side (a soft error): channel.close out, deliveries released, and
    /// everything but close-ok ignored until it arrives.</summary>
    private void CloseChannel(ChannelState ch, ushort code, string text, ushort classId, ushort methodId)
    {
        if (ch.Closing)
            return;
        ch.Closing = true;
        if (ch.Content is not null)
        {
            ch.Content = null;
            _midContentCount--;
        }
        ReleaseChannel(ch);
        SendMethod(
            ch.Number,
            new ChannelClose
            {
                ReplyCode = code,
                ReplyText = text,
                FailingClassId = classId,
                FailingMethodId = methodId,
            }
        );
    }

    private void RemoveChannel(ChannelState ch)
    {
        ch.Closed = true;
        ReleaseChannel(ch);
        _channels.Remove(ch.Number);
        if (ch.Content is not null)
        {
            ch.Content = null;
            _midContentCount--;
        }
        _confirmsDue.Remove(ch);
    }

    private void ReleaseChannel(ChannelState ch)
    {
        var host = Host!;
        lock (host.Gate)
        {
            foreach (var queue in ch.ReleaseAll())
            {
                host.MaybeAutoDelete(queue);
                if (!queue.Deleted)
                    queue.Dispatch();
            }
        }
    }

    // ------------------------------------------------------------------ channel methods

    private void HandleChannelMethod(ChannelState ch, IAmqpMethod method, long sequence)
    {
        var host = Host!;
        ushort n = ch.Number;
        switch (method)
        {
            case BasicPublish publish:
                StartContent(ch, publish, sequence);
                break;
            case ChannelOpen:
                throw new ProtocolViolationException(
                    ReplyCodes.ChannelError,
                    "second-channel-open",
                    "second 'channel.open' seen"
                );
            case ChannelClose:
                FlushConfirms(); // confirms due on this channel go out before close-ok
                RemoveChannel(ch);
                SendMethod(n, new ChannelCloseOk());
                break;
            case ChannelCloseOk:
                // No channel.close of the broker's is out: RabbitMQ 3.10 answers this with 503 (checked against it).
                throw new ProtocolViolationException(
                    ReplyCodes.CommandInvalid,
                    "unexpected-channel-close-ok",
                    "unimplemented method"
                );
            case ChannelFlow { Active: false }:
                // RabbitMQ 3.x does not let clients stop deliveries with channel.flow (checked against 3.10).
                throw new ProtocolViolationException(
                    ReplyCodes.NotImplemented,
                    "flow-inactive-not-implemented",
                    "active=false"
                );
            case ChannelFlow flow:
                lock (host.Gate)
                {
                    ch.FlowActive = flow.Active;
                    SendMethod(n, new ChannelFlowOk { Active = flow.Active });
                    if (flow.Active)
                        DispatchConsumers(ch);
                }
                break;
            case ExchangeDeclare m:
                host.DeclareExchange(m);
                if (!m.NoWait)
                    SendMethod(n, new ExchangeDeclareOk());
                break;
            case ExchangeDelete m:
                host.DeleteExchange(m.Exchange, m.IfUnused);
                if (!m.NoWait)
                    SendMethod(n, new ExchangeDeleteOk());
                break;
            case ExchangeBind m:
                host.Bind(
                    m.Source,
                    m.Destination,
                    destinationIsExchange: true,
                    m.RoutingKey,
                    m.Arguments,
                    unbind: false
                );
                if (!m.NoWait)
                    SendMethod(n, new ExchangeBindOk());
                break;
            case ExchangeUnbind m:
                host.Bind(
                    m.Source,
                    m.Destination,
                    destinationIsExchange: true,
                    m.RoutingKey,
                    m.Arguments,
                    unbind: true
                );
                if (!m.NoWait)
                    SendMethod(n, new ExchangeUnbindOk());
                break;
            case QueueDeclare m:
                var (name, messages, consumers) = host.DeclareQueue(m, Id);
                if (!m.NoWait)
                    SendMethod(
                        n,
                        new QueueDeclareOk
                        {
                            Queue = name,
                            MessageCount = messages,
                            ConsumerCount = consumers,
                        }
                    );
                break;
            case QueueBind m:
                host.Bind(m.Exchange, m.Queue, destinationIsExchange: false, m.RoutingKey, m.Arguments, unbind: false);
                if (!m.NoWait)
                    SendMethod(n, new QueueBindOk());
                break;
            case QueueUnbind m:
                host.Bind(m.Exchange, m.Queue, destinationIsExchange: false, m.RoutingKey, m.Arguments, unbind: true);
                SendMethod(n, new QueueUnbindOk());
                break;
            case QueuePurge m:
                uint purged = host.PurgeQueue(m.Queue, Id);
                if (!m.NoWait)
                    SendMethod(n, new QueuePurgeOk { MessageCount = purged });
                break;
            case QueueDelete m:
                uint deleted = host.DeleteQueue(m.Queue, m.IfUnused, m.IfEmpty, Id);
                if (!m.NoWait)
                    SendMethod(n, new QueueDeleteOk { MessageCount = deleted });
                break;
            case BasicQos { PrefetchSize: not 0 } m:
                throw new ProtocolViolationException(
                    ReplyCodes.NotImplemented,
                    "prefetch-size-not-implemented",
                    $"prefetch_size!=0 ({m.PrefetchSize})"
                );
            case BasicQos m:
                lock (host.Gate)
                {
                    if (m.Global)
                        ch.PrefetchCount = m.PrefetchCount;
                    else
                        ch.ConsumerPrefetch = m.PrefetchCount;
                    SendMethod(n, new BasicQosOk());
                    DispatchConsumers(ch);
                }
                break;
            case BasicConsume m:
                Consume(ch, m);
                break;
            case BasicCancel m:
                lock (host.Gate)
                {
                    if (ch.Consumers.Remove(m.ConsumerTag, out var consumer))
                    {
                        consumer.Queue.RemoveConsumer(consumer);
                        host.MaybeAutoDelete(consumer.Queue);
                    }
                    if (!m.NoWait)
                        SendMethod(n, new BasicCancelOk { ConsumerTag = m.ConsumerTag });
                }
                break;
            case BasicGet m:
                Get(ch, m);
                break;
            case BasicAck m:
                Settle(ch, m.DeliveryTag, m.Multiple, requeue: false, isAck: true);
                break;
            case BasicNack m:
                Settle(ch, m.DeliveryTag, m.Multiple, m.Requeue, isAck: false);
                break;
            case BasicReject m:
                Settle(ch, m.DeliveryTag, multiple: false, m.Requeue, isAck: false);
                break;
            case BasicRecover { Requeue: false } or BasicRecoverAsync { Requeue: false }:
                throw new ProtocolViolationException(
                    ReplyCodes.NotImplemented,
                    "recover-without-requeue",
                    "requeue=false"
                );
            case BasicRecover or BasicRecoverAsync:
                lock (host.Gate)
                {
                    foreach (var (tag, _) in ch.Unacked.ToList())
                        ch.Settle(tag, multiple: false, requeue: true, isAck: false);
                    if (method is BasicRecover)
                        SendMethod(n, new BasicRecoverOk());
                    DispatchConsumers(ch);
                }
                break;
            case ConfirmSelect m:
                ch.ConfirmMode = true;
                if (!m.NoWait)
                    SendMethod(n, new ConfirmSelectOk());
                break;
            case TxSelect or TxCommit or TxRollback:
                throw new ProtocolViolationException(
                    ReplyCodes.NotImplemented,
                    "tx-not-implemented",
                    "the fake broker does not implement transactions (tx.*)"
                );
            default:
                throw new ProtocolViolationException(
                    ReplyCodes.CommandInvalid,
                    "unimplemented-method",
                    "unimplemented method"
                );
        }
    }

    private void Consume(ChannelState ch, BasicConsume m)
    {
        var host = Host!;
        lock (host.Gate)
        {
            var queue = host.RequireQueue(m.Queue, Id);
            string tag =
                m.ConsumerTag.Length > 0
                    ? m.ConsumerTag
                    : "amq.ctag-"
                        + Convert
                            .ToBase64String(RandomNumberGenerator.GetBytes(16))
                            .TrimEnd('=')
                            .Replace('+', '-')
                            .Replace('/', '_');
            if (ch.Consumers.ContainsKey(tag))
                throw new ProtocolViolationException(
                    ReplyCodes.NotAllowed,
                    "consumer-tag-reused",
                    $"attempt to reuse consumer tag '{tag}'"
                );
            if (queue.Consumers.Any(c => c.Exclusive) || (m.Exclusive && queue.ConsumersCount > 0))
                throw new ProtocolViolationException(
                    ReplyCodes.AccessRefused,
                    "exclusive-consumer",
                    $"queue '{queue.Name}' in vhost '{host.Name}' in exclusive use",
                    channelOnly: true
                );
            var consumer = new Consumer(tag, queue, ch, m.NoAck, m.Exclusive, ch.ConsumerPrefetch);
            ch.Consumers[tag] = consumer;
            queue.AddConsumer(consumer);
            if (!m.NoWait)
                SendMethod(ch.Number, new BasicConsumeOk { ConsumerTag = tag });
            queue.Dispatch();
        }
    }

    private void Get(ChannelState ch, BasicGet m)
    {
        var host = Host!;
        lock (host.Gate)
        {
            var queue = host.RequireQueue(m.Queue, Id);
            if (!queue.TryDequeue(out var entry))
            {
                SendMethod(ch.Number, new BasicGetEmpty());
                return;
            }
            ulong tag = ++ch.LastDeliveryTag;
            if (!m.NoAck)
                ch.Unacked[tag] = new UnackedDelivery(entry, queue, null);
            SendContent(
                ch.Number,
                new BasicGetOk
                {
                    DeliveryTag = tag,
                    Redelivered = entry.Redelivered,
                    Exchange = entry.Parts.Origin.Exchange,
                    RoutingKey = entry.Parts.Origin.RoutingKey,
                    MessageCount = (uint)queue.ReadyCount,
                },
                entry.Parts
            );
        }
    }

    private void Settle(ChannelState ch, ulong tag, bool multiple, bool requeue, bool isAck)
    {
        var host = Host!;
        lock (host.Gate)
        {
            foreach (var queue in ch.Settle(tag, multiple, requeue, isAck))
                if (!queue.Deleted)
                    queue.Dispatch();
        }
    }

    /// <summary>Dispatches the queues this channel consumes from. Caller holds the lock.</summary>
    private static void DispatchConsumers(ChannelState ch)
    {
        foreach (var queue in ch.Consumers.Values.Select(c => c.Queue).Distinct().ToList())
            if (!queue.Deleted)
                queue.Dispatch();
    }
}
