using System.Net;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>How <see cref="PcapExporter"/> synthesizes the TCP connection around the recorded frames.</summary>
public sealed record PcapExportOptions
{
    /// <summary>The broker's TCP port in the capture (default 5672, which Wireshark dissects as AMQP).</summary>
    public ushort ServerPort { get; init; } = 5672;

    /// <summary>Connection <c>n</c> gets client port <c>ClientPortBase + n</c> (wrapped into 1024..65535). Default
    /// 40000.</summary>
    public int ClientPortBase { get; init; } = 40000;

    /// <summary>The client's IPv4 address (default 127.0.0.1).</summary>
    public IPAddress ClientAddress { get; init; } = IPAddress.Loopback;

    /// <summary>The broker's IPv4 address (default 127.0.0.1).</summary>
    public IPAddress ServerAddress { get; init; } = IPAddress.Loopback;

    /// <summary>What to write for body frames whose payload was not captured (default
    /// <see cref="PcapUncapturedBodies.Truncate"/>).</summary>
    public PcapUncapturedBodies UncapturedBodies { get; init; } = PcapUncapturedBodies.Truncate;

    /// <summary>Defaults.</summary>
    public static PcapExportOptions Default { get; } = new();

    internal ushort ClientPort(long connectionId)
    {
        const int lowest = 1024,
            range = 65536 - lowest;
        long port = ((ClientPortBase + connectionId - lowest) % range + range) % range + lowest;
        return (ushort)port;
    }
}
