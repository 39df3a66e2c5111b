using System.Globalization;
using System.Net;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// What the embedded Toxiproxy accepts, in one place: proxy and toxic names, listen and upstream addresses, toxic
/// types, streams, toxicity and attribute ranges. Every check throws <see cref="ToxiproxyApiException"/> with status
/// 400 and <see cref="ToxiproxyApiException.Field"/> naming the offending field, so a client error is never a 500.
/// </summary>
public static class ToxiproxyValidation
{
    /// <summary>The longest proxy or toxic name, in characters. Any accepted name fits in a request line (even
    /// percent-encoded, twice, in /proxies/{proxy}/toxics/{toxic}), so every proxy or toxic that can be created can
    /// also be read, changed and deleted.</summary>
    public const int MaxNameLength = 255;

    /// <summary>The longest listen or upstream address, in characters.</summary>
    public const int MaxAddressLength = 1024;

    /// <summary>The inclusive range of each attribute of each standard toxic type (a missing attribute counts as
    /// 0).</summary>
    public static IReadOnlyDictionary<
        string,
        IReadOnlyDictionary<string, (long Min, long Max)>
    > AttributeRanges { get; } =
        new Dictionary<string, IReadOnlyDictionary<string, (long Min, long Max)>>
        {
            [ToxicTypes.Latency] = new Dictionary<string, (long, long)>
            {
                ["latency"] = (0, int.MaxValue),
                ["jitter"] = (0, int.MaxValue),
            },
            [ToxicTypes.Bandwidth] = new Dictionary<string, (long, long)> { ["rate"] = (0, int.MaxValue) },
            [ToxicTypes.Slicer] = new Dictionary<string, (long, long)>
            {
                ["average_size"] = (1, int.MaxValue),
                ["size_variation"] = (0, int.MaxValue),
                ["delay"] = (0, int.MaxValue),
            },
            [ToxicTypes.Timeout] = new Dictionary<string, (long, long)> { ["timeout"] = (0, int.MaxValue) },
            [ToxicTypes.ResetPeer] = new Dictionary<string, (long, long)> { ["timeout"] = (0, int.MaxValue) },
            [ToxicTypes.LimitData] = new Dictionary<string, (long, long)> { ["bytes"] = (0, long.MaxValue) },
            [ToxicTypes.SlowClose] = new Dictionary<string, (long, long)> { ["delay"] = (0, int.MaxValue) },
        };

    /// <summary>Checks a proxy or toxic name: 1 to <see cref="MaxNameLength"/> characters of well-formed text, no
    /// control characters, no '/' or '\' and not "." or ".." (which a URL path cannot carry as one segment).</summary>
    /// <exception cref="ToxiproxyApiException">400, naming <paramref name="field"/>.</exception>
    public static void CheckName(string? name, string field)
    {
        if (string.IsNullOrEmpty(name))
            throw ToxiproxyApiException.MissingField(field);
        if (name.Length > MaxNameLength)
            throw ToxiproxyApiException.Invalid(
                field,
                $"{field} is {name.Length} characters long; the limit is {MaxNameLength}"
            );
        if (name is "." or "..")
            throw ToxiproxyApiException.Invalid(field, $"{field} cannot be \"{name}\"");
        for (int i = 0; i < name.Length; i++)
        {
            char c = name[i];
            if (char.IsHighSurrogate(c) && i + 1 < name.Length && char.IsLowSurrogate(name[i + 1]))
            {
                i++;
                continue;
            }
            if (char.IsSurrogate(c))
                throw ToxiproxyApiException.Invalid(
                    field,
                    $"{field} is not well-formed text (a lone surrogate at {i})"
                );
            if (char.IsControl(c) || c is '/' or '\\')
                throw ToxiproxyApiException.Invalid(
                    field,
                    $"{field} cannot contain {(char.IsControl(c) ? "a control character" : $"'{c}'")} (U+{(int)c:X4} at {i})"
                );
        }
    }

    /// <summary>The loopback endpoint <paramref name="listen"/> names: host:port with 127.0.0.0/8, [::1], an
    /// IPv4-mapped loopback address (taken as IPv4) or localhost (127.0.0.1), and a port of 0 (any free one) to
    /// 65535.</summary>
    /// <exception cref="ToxiproxyApiException">400, naming <paramref name="field"/>.</exception>
    public static IPEndPoint ParseLoopback(string? listen, string field = "listen")
    {
        (string host, int port) = SplitHostPort(listen, field);
        IPAddress? address =
            host.Equals("localhost", StringComparison.OrdinalIgnoreCase) ? IPAddress.Loopback
            : IPAddress.TryParse(host, out IPAddress? ip) ? (ip.IsIPv4MappedToIPv6 ? ip.MapToIPv4() : ip)
            : null;
        if (
            address is null
            || !IPAddress.IsLoopback(address)
            || (address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 && address.ScopeId != 0)
        )
            throw ToxiproxyApiException.Invalid(
                field,
                $"{field} {listen}: the embedded proxy listens on loopback only (127.0.0.1, [::1] or localhost)"
            );
        return new IPEndPoint(address, port);
    }

    /// <summary>Splits host:port ([v6]:port too); the host must be non-empty and the port 0-65535.</summary>
    /// <exception cref="ToxiproxyApiException">400, naming <paramref name="field"/>.</exception>
    public static (string Host, int Port) SplitHostPort(string? address, string field)
    {
        if (string.IsNullOrEmpty(address))
            throw ToxiproxyApiException.MissingField(field);
        if (address.Length > MaxAddressLength)
            throw ToxiproxyApiException.Invalid(
                field,
                $"{field} is {address.Length} characters long; the limit is {MaxAddressLength}"
            );
        int colon = address.LastIndexOf(':');
        if (
            colon <= 0
            || !int.TryParse(address.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out int port)
            || port > 65535
        )
            throw ToxiproxyApiException.Invalid(field, $"{field} '{address}' is not host:port (port 0-65535)");
        string host = address[..colon];
        if (host.StartsWith('[') && host.EndsWith(']'))
            host = host[1..^1];
        if (host.Length == 0 || host.Any(c => char.IsControl(c) || char.IsWhiteSpace(c)))
            throw ToxiproxyApiException.Invalid(field, $"{field} '{address}' has no usable host");
        return (host, port);
    }

    /// <summary>Checks a toxic as given to <see cref="FaultProxy.AddToxic"/> or after an update: name, a standard type,
    /// stream, toxicity 0-1, and each of its type's attributes within <see cref="AttributeRanges"/> (a slicer's
    /// size_variation also below its average_size). Attributes of other names are not checked (Toxiproxy ignores
    /// them).</summary>
    /// <exception cref="ToxiproxyApiException">400, naming the field (for attributes: "attributes.{name}").</exception>
    public static void CheckToxic(ToxicConfig toxic)
    {
        ArgumentNullException.ThrowIfNull(toxic);
        if (!ToxicTypes.IsKnown(toxic.Type))
            throw ToxiproxyApiException.Invalid("type", "invalid toxic type");
        if (!ToxicStreams.TryParse(toxic.Stream, out _))
            throw ToxiproxyApiException.Invalid("stream", "stream was invalid, can be either upstream or downstream");
        if (!(toxic.Toxicity is >= 0f and <= 1f))
            throw ToxiproxyApiException.Invalid(
                "toxicity",
                $"toxicity must be between 0 and 1 (was {toxic.Toxicity.ToString(CultureInfo.InvariantCulture)})"
            );
        CheckName(toxic.Name, "name");
        if (toxic.Attributes is null)
            throw ToxiproxyApiException.Invalid("attributes", "attributes must be an object of integers");
        foreach ((string name, (long min, long max)) in AttributeRanges[toxic.Type])
        {
            long value = toxic.Attribute(name);
            if (value < min || value > max)
                throw ToxiproxyApiException.Invalid(
                    $"attributes.{name}",
                    $"attribute '{name}' of a {toxic.Type} toxic must be between {min} and {max} (was {value})"
                );
        }
        if (toxic.Type == ToxicTypes.Slicer && toxic.Attribute("size_variation") >= toxic.Attribute("average_size"))
            throw ToxiproxyApiException.Invalid(
                "attributes.size_variation",
                $"attribute 'size_variation' of a slicer toxic must be less than average_size ({toxic.Attribute("average_size")}); was {toxic.Attribute("size_variation")}"
            );
    }
}
