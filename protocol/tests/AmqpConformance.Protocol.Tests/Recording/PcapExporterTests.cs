using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;

namespace AmqpConformance.Protocol.Tests.Recording;

public sealed class PcapExporterTests
{
    private const byte Syn = 0x02,
        Ack = 0x10;

    private static (uint LinkType, List<PcapTestReader.Packet> Packets) Export(
        FrameLog log,
        PcapExportOptions? options = null
    )
    {
        using var stream = new MemoryStream();
        PcapExporter.Write(stream, log, options);
        return PcapTestReader.Read(stream.ToArray());
    }

    private static SampleLogs Session(bool captureBodies, int bodyLength = 200_000)
    {
        var sample = new SampleLogs(connectionId: 2, captureBodies);
        sample.Method(FrameDirection.Sent, 0, new ConnectionStart());
        sample.Method(FrameDirection.Received, 0, new ConnectionStartOk { Response = "\0guest\0guest"u8.ToArray() });
        sample.Method(FrameDirection.Received, 1, new ChannelOpen());
        sample.Method(FrameDirection.Sent, 1, new ChannelOpenOk());
        sample.Publish(1, SampleLogs.Pattern(bodyLength, 3), 131072);
        return sample;
    }

    [Fact]
    public void Starts_with_a_handshake_then_the_protocol_header_at_client_offset_zero()
    {
        var (linkType, packets) = Export(Session(captureBodies: false).Log);

        Assert.Equal(101u, linkType); // LINKTYPE_RAW
        Assert.All(packets, p => Assert.True(p.IpChecksumValid));
        Assert.Equal(Syn, packets[0].Flags);
        Assert.Equal(Syn | Ack, packets[1].Flags);
        Assert.Equal(packets[0].Sequence + 1, packets[1].Acknowledgment);
        Assert.Equal(Ack, packets[2].Flags);
        Assert.Equal((ushort)40002, packets[0].SourcePort);
        Assert.Equal((ushort)5672, packets[0].DestinationPort);

        uint clientData = packets[0].Sequence + 1;
        PcapTestReader.Packet header = packets.First(p => p.SourcePort == 40002 && p.PayloadLength > 0);
        Assert.Equal(clientData, header.Sequence);
        Assert.Equal(AmqpConstants.ProtocolHeader.ToArray(), header.CapturedPayload);
    }

    [Fact]
    public void Every_frame_starts_at_its_wire_offset_and_acks_what_the_peer_sent_so_far()
    {
        FrameLog log = Session(captureBodies: true).Log;
        var (_, packets) = Export(log);
        uint clientData = packets[0].Sequence + 1,
            serverData = packets[1].Sequence + 1;
        List<PcapTestReader.Packet> data =
        [
            .. packets.Where(p => p.PayloadLength > 0 && !(p.SourcePort != 5672 && p.Sequence == clientData)),
        ];

        long serverSent = 0;
        int at = 0;
        foreach (FrameRecord frame in log.Snapshot())
        {
            bool fromClient = frame.Direction == FrameDirection.Received;
            PcapTestReader.Packet first = data[at];
            Assert.Equal((ushort)5672, fromClient ? first.DestinationPort : first.SourcePort);
            Assert.Equal((uint)((fromClient ? clientData : serverData) + frame.WireOffset), first.Sequence);
            if (fromClient)
                Assert.Equal((uint)(serverData + serverSent), first.Acknowledgment);
            // The frame's bytes, across as many segments as it took, are exactly type|channel|size|payload|0xCE.
            var bytes = new List<byte>();
            while (bytes.Count < frame.WireLength)
                bytes.AddRange(data[at++].CapturedPayload);
            Assert.Equal((byte)frame.Type, bytes[0]);
            Assert.Equal(frame.Payload!.Value.ToArray(), bytes.Skip(7).Take(frame.Size).ToArray());
            Assert.Equal(AmqpConstants.FrameEnd, bytes[^1]);
            if (!fromClient)
                serverSent = frame.WireOffset + frame.WireLength;
        }
        Assert.Equal(data.Count, at);
    }

    [Fact]
    public void Uncaptured_bodies_are_truncated_to_the_frame_header_with_the_original_length_kept()
    {
        FrameLog log = Session(captureBodies: false, bodyLength: 1000).Log;
        var (_, packets) = Export(log);

        FrameRecord body = log.Snapshot().Single(f => f.Type == FrameType.Body);
        PcapTestReader.Packet packet = Assert.Single(packets, p => p.PayloadLength == body.WireLength);
        Assert.Equal(40 + 7, packet.CapturedLength);
        Assert.Equal(40 + (int)body.WireLength, packet.OriginalLength);
        Assert.Equal(new byte[] { 3, 0, 1, 0, 0, 0x03, 0xE8 }, packet.CapturedPayload);
    }

    [Fact]
    public void Zero_fill_writes_whole_frames_with_zero_payloads_split_into_ipv4_sized_segments()
    {
        FrameLog log = Session(captureBodies: false, bodyLength: 131064).Log;
        var (_, packets) = Export(log, new PcapExportOptions { UncapturedBodies = PcapUncapturedBodies.ZeroFill });

        List<PcapTestReader.Packet> segments = [.. packets.SkipWhile(p => p.PayloadLength != 65495)];
        Assert.Equal([65495, 65495, 82], segments.Select(p => p.PayloadLength));
        Assert.All(segments, p => Assert.Equal(p.OriginalLength, p.CapturedLength));
        byte[] frame = [.. segments.SelectMany(p => p.CapturedPayload)];
        Assert.Equal(131072, frame.Length);
        Assert.True(frame.AsSpan(7, 131064).IndexOfAnyExcept((byte)0) < 0);
        Assert.Equal(AmqpConstants.FrameEnd, frame[^1]);
        Assert.Equal(segments[0].Sequence + 65495, segments[1].Sequence);
    }

    [Fact]
    public void Timestamps_come_from_the_records_and_connections_merge_by_time()
    {
        var first = Session(captureBodies: false, bodyLength: 10);
        var second = new SampleLogs(connectionId: 3);
        second.Method(FrameDirection.Sent, 0, new ConnectionStart());
        using var stream = new MemoryStream();
        PcapExporter.Write(stream, [FrameLogSnapshot.From(first.Log), FrameLogSnapshot.From(second.Log)]);
        var (_, packets) = PcapTestReader.Read(stream.ToArray());

        Assert.True(packets.Zip(packets.Skip(1)).All(pair => pair.First.Time <= pair.Second.Time));
        FrameRecord last = first.Log.Snapshot()[^1];
        Assert.Equal(first.Log.StartedAt + last.Timestamp, packets.Last(p => p.SourcePort == 40002).Time);
        Assert.Contains(packets, p => p.DestinationPort == 40003 && p.PayloadLength > 0);
    }
}
