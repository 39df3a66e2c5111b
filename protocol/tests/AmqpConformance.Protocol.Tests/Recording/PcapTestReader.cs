using System.Buffers.Binary;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>Parses the pcap files <see cref="AmqpConformance.Protocol.Recording.Export.PcapExporter"/> writes
/// (nanosecond magic, LINKTYPE_RAW, IPv4/TCP), independently of the exporter's code.</summary>
internal static class PcapTestReader
{
    public sealed record Packet(
        DateTimeOffset Time,
        int CapturedLength,
        int OriginalLength,
        ushort SourcePort,
        ushort DestinationPort,
        uint Sequence,
        uint Acknowledgment,
        byte Flags,
        int PayloadLength,
        byte[] CapturedPayload,
        bool IpChecksumValid
    );

    public static (uint LinkType, List<Packet> Packets) Read(byte[] file)
    {
        ReadOnlySpan<byte> span = file;
        Assert.Equal(0xA1B23C4Du, BinaryPrimitives.ReadUInt32LittleEndian(span));
        Assert.Equal(2, BinaryPrimitives.ReadUInt16LittleEndian(span[4..]));
        Assert.Equal(4, BinaryPrimitives.ReadUInt16LittleEndian(span[6..]));
        uint linkType = BinaryPrimitives.ReadUInt32LittleEndian(span[20..]);
        var packets = new List<Packet>();
        int at = 24;
        while (at < file.Length)
        {
            uint seconds = BinaryPrimitives.ReadUInt32LittleEndian(span[at..]);
            uint nanos = BinaryPrimitives.ReadUInt32LittleEndian(span[(at + 4)..]);
            int incl = (int)BinaryPrimitives.ReadUInt32LittleEndian(span[(at + 8)..]);
            int orig = (int)BinaryPrimitives.ReadUInt32LittleEndian(span[(at + 12)..]);
            ReadOnlySpan<byte> ip = span.Slice(at + 16, incl);
            Assert.Equal(0x45, ip[0]);
            Assert.Equal(6, ip[9]);
            int totalLength = BinaryPrimitives.ReadUInt16BigEndian(ip[2..]);
            Assert.Equal(orig, totalLength);
            ReadOnlySpan<byte> tcp = ip[20..];
            int dataOffset = (tcp[12] >> 4) * 4;
            packets.Add(
                new Packet(
                    DateTimeOffset.UnixEpoch.AddTicks(seconds * TimeSpan.TicksPerSecond + nanos / 100),
                    incl,
                    orig,
                    BinaryPrimitives.ReadUInt16BigEndian(tcp),
                    BinaryPrimitives.ReadUInt16BigEndian(tcp[2..]),
                    BinaryPrimitives.ReadUInt32BigEndian(tcp[4..]),
                    BinaryPrimitives.ReadUInt32BigEndian(tcp[8..]),
                    tcp[13],
                    totalLength - 20 - dataOffset,
                    tcp[dataOffset..].ToArray(),
                    Checksum(ip[..20]) == 0
                )
            );
            at += 16 + incl;
        }
        return (linkType, packets);
    }

    private static ushort Checksum(ReadOnlySpan<byte> header)
    {
        uint sum = 0;
        for (int i = 0; i < header.Length; i += 2)
            sum += BinaryPrimitives.ReadUInt16BigEndian(header[i..]);
        while (sum > 0xFFFF)
            sum = (sum & 0xFFFF) + (sum >> 16);
        return (ushort)~sum;
    }
}
