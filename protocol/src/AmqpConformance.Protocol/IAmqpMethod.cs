namespace AmqpConformance.Protocol;

/// <summary>
/// An AMQP 0-9-1 method (a method frame's payload, decoded). Every method of the protocol and of
/// RabbitMQ's extensions has one immutable record implementing this (e.g. <see cref="BasicPublish"/>);
/// <see cref="MethodCodec"/> decodes and encodes them.
/// </summary>
public interface IAmqpMethod
{
    /// <summary>The class id (10 connection, 20 channel, 40 exchange, 50 queue, 60 basic, 85 confirm, 90 tx).</summary>
    ushort ClassId { get; }

    /// <summary>The method id within the class.</summary>
    ushort MethodId { get; }

    /// <summary>The spec name, e.g. "basic.publish".</summary>
    string Name { get; }

    /// <summary>Whether a content header (and body frames) follow this method: basic.publish, basic.return,
    /// basic.deliver and basic.get-ok.</summary>
    bool HasContent { get; }
}
