using System.Net;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>The addressing and TCP header fields of one synthesized segment.</summary>
internal readonly record struct TcpSegmentHeader(
    IPAddress Source,
    ushort SourcePort,
    IPAddress Destination,
    ushort DestinationPort,
    uint Sequence,
    uint Acknowledgment,
    TcpFlags Flags
);
