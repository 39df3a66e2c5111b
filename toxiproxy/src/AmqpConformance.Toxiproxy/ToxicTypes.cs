using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy;

/// <summary>The standard Toxiproxy toxic types, their attributes, and the <see cref="Fault"/> each one is
/// applied as in the embedded proxy (the same engine as the in-process <see cref="FaultyTransport"/>).</summary>
public static class ToxicTypes
{
    /// <summary>latency: latency, jitter (ms).</summary>
    public const string Latency = "latency";

    /// <summary>bandwidth: rate (KB/s).</summary>
    public const string Bandwidth = "bandwidth";

    /// <summary>slicer: average_size, size_variation (bytes), delay (µs).</summary>
    public const string Slicer = "slicer";

    /// <summary>timeout: timeout (ms; 0 = until removed). Data is dropped.</summary>
    public const string Timeout = "timeout";

    /// <summary>reset_peer: timeout (ms). Resets the connection when data arrives, after the timeout.</summary>
    public const string ResetPeer = "reset_peer";

    /// <summary>limit_data: bytes. Closes the connection after that many bytes.</summary>
    public const string LimitData = "limit_data";

    /// <summary>slow_close: delay (ms) before a close is passed on.</summary>
    public const string SlowClose = "slow_close";

    /// <summary>The attribute names of each type, with the defaults a missing attribute takes (0).</summary>
    public static IReadOnlyDictionary<string, string[]> AttributeNames { get; } =
        new Dictionary<string, string[]>
        {
            [Latency] = ["latency", "jitter"],
            [Bandwidth] = ["rate"],
            [Slicer] = ["average_size", "size_variation", "delay"],
            [Timeout] = ["timeout"],
            [ResetPeer] = ["timeout"],
            [LimitData] = ["bytes"],
            [SlowClose] = ["delay"],
        };

    /// <summary>Whether <paramref name="type"/> is one of the standard types.</summary>
    public static bool IsKnown(string? type) => type is not null && AttributeNames.ContainsKey(type);

    /// <summary>The toxic with every attribute of its type present (missing ones 0, unknown ones dropped),
    /// as Toxiproxy reports toxics.</summary>
    public static ToxicConfig Normalize(ToxicConfig toxic)
    {
        ArgumentNullException.ThrowIfNull(toxic);
        if (!AttributeNames.TryGetValue(toxic.Type, out string[]? names))
            throw new ArgumentException($"invalid toxic type '{toxic.Type}'", nameof(toxic));
        return toxic with { Attributes = names.ToDictionary(n => n, n => toxic.Attribute(n)) };
    }

    /// <summary>The fault the embedded proxy applies for <paramref name="toxic"/>; null when the toxic is a
    /// no-op (bandwidth rate 0, as in Toxiproxy). Throws <see cref="ArgumentException"/> with the field
    /// name for unknown types or out-of-range values.</summary>
    public static Fault? ToFault(ToxicConfig toxic)
    {
        ArgumentNullException.ThrowIfNull(toxic);
        if (!ToxicStreams.TryParse(toxic.Stream, out FaultDirection direction))
            throw new ArgumentException("stream was invalid, can be either upstream or downstream", nameof(toxic));
        if (toxic.Toxicity is < 0f or > 1f || float.IsNaN(toxic.Toxicity))
            throw new ArgumentException($"toxicity must be between 0 and 1 (was {toxic.Toxicity})", nameof(toxic));
        static int Int(ToxicConfig t, string name)
        {
            long v = t.Attribute(name);
            if (v is < 0 or > int.MaxValue)
                throw new ArgumentException(
                    $"attribute '{name}' of a {t.Type} toxic must be between 0 and {int.MaxValue} (was {v})",
                    name
                );
            return (int)v;
        }
        Fault? fault = toxic.Type switch
        {
            Latency => new LatencyFault(Int(toxic, "latency"), Int(toxic, "jitter")),
            Bandwidth => Int(toxic, "rate") == 0 ? null : new BandwidthFault(Int(toxic, "rate")),
            Slicer => new SlicerFault(Int(toxic, "average_size"), Int(toxic, "size_variation"), Int(toxic, "delay")),
            Timeout => new BlackHoleFault(Int(toxic, "timeout")),
            ResetPeer => new ResetPeerFault(null, Int(toxic, "timeout")),
            LimitData => new LimitDataFault(
                toxic.Attribute("bytes") is >= 0 and long bytes
                    ? bytes
                    : throw new ArgumentException(
                        $"attribute 'bytes' of a limit_data toxic must be at least 0 (was {toxic.Attribute("bytes")})",
                        "bytes"
                    )
            ),
            SlowClose => new SlowCloseFault(Int(toxic, "delay")),
            _ => throw new ArgumentException($"invalid toxic type '{toxic.Type}'", nameof(toxic)),
        };
        if (fault is null)
            return null;
        fault = fault with { Direction = direction };
        fault.Validate();
        return fault;
    }
}
