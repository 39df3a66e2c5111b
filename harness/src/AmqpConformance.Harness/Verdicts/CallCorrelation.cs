using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Ties commands on the wire to the calls that made them by the name "call-{id}": a publish carries it as its
/// routing key; a call without content is a basic.cancel (nowait) that carries it as its consumer tag, which a broker
/// ignores (no consumer has that tag), so the command reaches the wire and the broker without any effect or reply; a
/// connection-level call without content (channel 0) is a connection.update-secret carrying it as its reason, which a
/// running connection may send at any time (the broker answers update-secret-ok).</summary>
public static class CallCorrelation
{
    private const string Prefix = "call-";

    private const string MessageIdPrefix = "msg-";

    /// <summary>The message-id a writer-level publish of call <paramref name="callId"/> carries in its content
    /// properties: the same length for every call (eight digits), so two publishes' headers differ in value, not in
    /// shape, and a writer that reuses a header of the same shape shows.</summary>
    public static string MessageIdFor(int callId) =>
        MessageIdPrefix + callId.ToString("D8", CultureInfo.InvariantCulture);

    /// <summary>The call a message-id made by <see cref="MessageIdFor"/> names, or null for any other
    /// message-id.</summary>
    public static int? CallIdFromMessageId(string? messageId) =>
        messageId is not null
        && messageId.Length == MessageIdPrefix.Length + 8
        && messageId.StartsWith(MessageIdPrefix, StringComparison.Ordinal)
        && int.TryParse(
            messageId.AsSpan(MessageIdPrefix.Length),
            NumberStyles.None,
            CultureInfo.InvariantCulture,
            out int id
        )
            ? id
            : null;

    /// <summary>The routing key a call with id <paramref name="callId"/> publishes with.</summary>
    public static string RoutingKeyFor(int callId) => Prefix + callId.ToString(CultureInfo.InvariantCulture);

    /// <summary>The call id in a routing key made by <see cref="RoutingKeyFor"/>, or null for any other key.</summary>
    public static int? CallIdFrom(string? routingKey) =>
        routingKey is not null
        && routingKey.StartsWith(Prefix, StringComparison.Ordinal)
        && int.TryParse(routingKey.AsSpan(Prefix.Length), NumberStyles.None, CultureInfo.InvariantCulture, out int id)
            ? id
            : null;

    /// <summary>The consumer tag a call with id <paramref name="callId"/> carries in its basic.cancel (a call without
    /// content).</summary>
    public static string ConsumerTagFor(int callId) => RoutingKeyFor(callId);

    /// <summary>The call a method frame's payload belongs to: the routing key of a basic.publish
    /// (<paramref name="hasContent"/> true) or the consumer tag of a basic.cancel (false), when it is a harness
    /// correlation name; null for any other method.</summary>
    public static int? CallIdOfMethod(ReadOnlySpan<byte> methodPayload, out bool hasContent)
    {
        hasContent = IsMethod(methodPayload, 60, 40);
        if (hasContent)
            return CallIdFrom(RoutingKeyOfPublish(methodPayload));
        return CallIdOfCommandWithoutContent(methodPayload);
    }

    /// <summary>The call a command without content belongs to: the consumer tag of a basic.cancel or the reason of a
    /// connection.update-secret, when it is a harness correlation name; null for any other method.</summary>
    public static int? CallIdOfCommandWithoutContent(ReadOnlySpan<byte> methodPayload) =>
        CallIdFrom(ConsumerTagOfCancel(methodPayload) ?? ReasonOfUpdateSecret(methodPayload));

    /// <summary>The reason a connection-level call without content (id <paramref name="callId"/>) carries in its
    /// connection.update-secret.</summary>
    public static string UpdateSecretReasonFor(int callId) => RoutingKeyFor(callId);

    /// <summary>Reads the reason from a connection.update-secret method payload (class 10, method 70: class, method,
    /// new-secret longstr, reason shortstr). Null when the payload is not a well-formed
    /// connection.update-secret.</summary>
    public static string? ReasonOfUpdateSecret(ReadOnlySpan<byte> methodPayload)
    {
        if (methodPayload.Length < 9 || !IsMethod(methodPayload, 10, 70))
            return null;
        uint secretLength = BinaryPrimitives.ReadUInt32BigEndian(methodPayload[4..]);
        if (secretLength > (uint)(methodPayload.Length - 9))
            return null;
        int at = 8 + (int)secretLength;
        int reasonLength = methodPayload[at];
        if (at + 1 + reasonLength > methodPayload.Length)
            return null;
        return Encoding.UTF8.GetString(methodPayload.Slice(at + 1, reasonLength));
    }

    /// <summary>Reads the consumer tag from a basic.cancel method payload (class 60, method 30: class, method,
    /// consumer-tag shortstr, bits). Null when the payload is not a well-formed basic.cancel.</summary>
    public static string? ConsumerTagOfCancel(ReadOnlySpan<byte> methodPayload)
    {
        if (methodPayload.Length < 5 || !IsMethod(methodPayload, 60, 30))
            return null;
        int tagLength = methodPayload[4];
        if (5 + tagLength > methodPayload.Length)
            return null;
        return Encoding.UTF8.GetString(methodPayload.Slice(5, tagLength));
    }

    private static bool IsMethod(ReadOnlySpan<byte> methodPayload, ushort classId, ushort methodId) =>
        methodPayload.Length >= 4
        && BinaryPrimitives.ReadUInt16BigEndian(methodPayload) == classId
        && BinaryPrimitives.ReadUInt16BigEndian(methodPayload[2..]) == methodId;

    /// <summary>Reads the routing key from a basic.publish method payload (class 60, method 40: class, method, reserved
    /// short, exchange shortstr, routing-key shortstr, bits). Null when the payload is not a well-formed
    /// basic.publish.</summary>
    public static string? RoutingKeyOfPublish(ReadOnlySpan<byte> methodPayload)
    {
        if (methodPayload.Length < 7)
            return null;
        if (!IsMethod(methodPayload, 60, 40))
            return null;
        int pos = 6;
        int exchangeLength = methodPayload[pos];
        pos += 1 + exchangeLength;
        if (pos >= methodPayload.Length)
            return null;
        int keyLength = methodPayload[pos];
        pos += 1;
        if (pos + keyLength > methodPayload.Length)
            return null;
        return Encoding.UTF8.GetString(methodPayload.Slice(pos, keyLength));
    }
}
