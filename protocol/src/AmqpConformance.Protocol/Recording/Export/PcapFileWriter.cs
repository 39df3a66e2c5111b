using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>
/// Writes a classic libpcap file (nanosecond timestamps, little-endian, LINKTYPE_RAW: each packet starts with its
/// IPv4 header) whose packets are IPv4/TCP segments. The caller supplies the TCP fields and the captured part of
/// the segment payload; the original (on-the-wire) length may be larger than what is captured.
/// </summary>
internal sealed class PcapFileWriter
{
    public const int IpHeaderSize = 20;
    public const int TcpHeaderSize = 20;
    public const int MaxSegmentPayload = ushort.MaxValue - IpHeaderSize - TcpHeaderSize;
    private const uint MagicNanoseconds = 0xA1B23C4D;
    private const uint LinkTypeRaw = 101;
    private const int SnapLength = 262144;

    private readonly Stream _output;
    private readonly byte[] _headers = new byte[16 + IpHeaderSize + TcpHeaderSize];
    private ushort _ipId;

    public PcapFileWriter(Stream output)
    {
        _output = output;
        Span<byte> global = stackalloc byte[24];
        BinaryPrimitives.WriteUInt32LittleEndian(global, MagicNanoseconds);
        BinaryPrimitives.WriteUInt16LittleEndian(global[4..], 2);
        BinaryPrimitives.WriteUInt16LittleEndian(global[6..], 4);
        BinaryPrimitives.WriteInt32LittleEndian(global[8..], 0); // thiszone
        BinaryPrimitives.WriteUInt32LittleEndian(global[12..], 0); // sigfigs
        BinaryPrimitives.WriteUInt32LittleEndian(global[16..], SnapLength);
        BinaryPrimitives.WriteUInt32LittleEndian(global[20..], LinkTypeRaw);
        _output.Write(global);
    }

    /// <summary>Writes one packet. <paramref name="captured"/> is the start of the TCP payload that is in the file;
    /// <paramref name="payloadLength"/> is the payload's length on the wire (at least
    /// <c>captured.Length</c>).</summary>
    public void WriteSegment(
        DateTimeOffset time,
        in TcpSegmentHeader tcp,
        ReadOnlySpan<byte> captured,
        int payloadLength
    )
    {
        if (payloadLength > MaxSegmentPayload)
            throw new ArgumentOutOfRangeException(
                nameof(payloadLength),
                payloadLength,
                "Too large for one IPv4 packet."
            );
        if (captured.Length > payloadLength)
            throw new ArgumentException("More captured bytes than the segment holds.", nameof(captured));

        long unixNanoseconds = (time.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) * 100;
        Span<byte> h = _headers;
        h.Clear();
        BinaryPrimitives.WriteUInt32LittleEndian(h, (uint)(unixNanoseconds / 1_000_000_000));
        BinaryPrimitives.WriteUInt32LittleEndian(h[4..], (uint)(unixNanoseconds % 1_000_000_000));
        BinaryPrimitives.WriteUInt32LittleEndian(h[8..], (uint)(IpHeaderSize + TcpHeaderSize + captured.Length));
        BinaryPrimitives.WriteUInt32LittleEndian(h[12..], (uint)(IpHeaderSize + TcpHeaderSize + payloadLength));

        Span<byte> ip = h.Slice(16, IpHeaderSize);
        ip[0] = 0x45; // IPv4, 5 words
        BinaryPrimitives.WriteUInt16BigEndian(ip[2..], (ushort)(IpHeaderSize + TcpHeaderSize + payloadLength));
        BinaryPrimitives.WriteUInt16BigEndian(ip[4..], _ipId++);
        BinaryPrimitives.WriteUInt16BigEndian(ip[6..], 0x4000); // don't fragment
        ip[8] = 64; // TTL
        ip[9] = (byte)ProtocolType.Tcp;
        WriteAddress(ip[12..], tcp.Source);
        WriteAddress(ip[16..], tcp.Destination);
        BinaryPrimitives.WriteUInt16BigEndian(ip[10..], InternetChecksum(ip));

        Span<byte> t = h.Slice(16 + IpHeaderSize, TcpHeaderSize);
        BinaryPrimitives.WriteUInt16BigEndian(t, tcp.SourcePort);
        BinaryPrimitives.WriteUInt16BigEndian(t[2..], tcp.DestinationPort);
        BinaryPrimitives.WriteUInt32BigEndian(t[4..], tcp.Sequence);
        BinaryPrimitives.WriteUInt32BigEndian(t[8..], tcp.Acknowledgment);
        t[12] = (TcpHeaderSize / 4) << 4;
        t[13] = (byte)tcp.Flags;
        BinaryPrimitives.WriteUInt16BigEndian(t[14..], ushort.MaxValue); // window
        // TCP checksum left 0: the payload is not always captured, and Wireshark does not verify it by default.

        _output.Write(h);
        _output.Write(captured);
    }

    private static void WriteAddress(Span<byte> destination, IPAddress address)
    {
        if (address.AddressFamily != AddressFamily.InterNetwork || !address.TryWriteBytes(destination[..4], out _))
            throw new ArgumentException($"{address} is not an IPv4 address.", nameof(address));
    }

    private static ushort InternetChecksum(ReadOnlySpan<byte> header)
    {
        uint sum = 0;
        for (int i = 0; i < header.Length; i += 2)
            sum += BinaryPrimitives.ReadUInt16BigEndian(header[i..]);
        while (sum > 0xFFFF)
            sum = (sum & 0xFFFF) + (sum >> 16);
        return (ushort)~sum;
    }
}
