using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Ties basic.publish frames on the wire to the calls that made them: each call publishes with routing key "call-{id}".</summary>
public static class CallCorrelation
{
    private const string Prefix = "call-";

    /// <summary>The routing key a call with id <paramref name="callId"/> publishes with.</summary>
    public static string RoutingKeyFor(int callId) => Prefix + callId.ToString(CultureInfo.InvariantCulture);

    /// <summary>The call id in a routing key made by <see cref="RoutingKeyFor"/>, or null for any other key.</summary>
    public static int? CallIdFrom(string? routingKey) =>
        routingKey is not null && routingKey.StartsWith(Prefix, StringComparison.Ordinal) &&
        int.TryParse(routingKey.AsSpan(Prefix.Length), NumberStyles.None, CultureInfo.InvariantCulture, out int id)
            ? id : null;

    /// <summary>Reads the routing key from a basic.publish method payload (class 60, method 40: class, method,
    /// reserved short, exchange shortstr, routing-key shortstr, bits). Null when the payload is not a well-formed basic.publish.</summary>
    public static string? RoutingKeyOfPublish(ReadOnlySpan<byte> methodPayload)
    {
        if (methodPayload.Length < 7) return null;
        if (BinaryPrimitives.ReadUInt16BigEndian(methodPayload) != 60 || BinaryPrimitives.ReadUInt16BigEndian(methodPayload[2..]) != 40)
            return null;
        int pos = 6;
        int exchangeLength = methodPayload[pos];
        pos += 1 + exchangeLength;
        if (pos >= methodPayload.Length) return null;
        int keyLength = methodPayload[pos];
        pos += 1;
        if (pos + keyLength > methodPayload.Length) return null;
        return Encoding.UTF8.GetString(methodPayload.Slice(pos, keyLength));
    }
}
