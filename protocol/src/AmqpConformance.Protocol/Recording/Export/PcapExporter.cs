using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>
/// Writes frame logs as a classic libpcap capture that Wireshark and tshark open and dissect as AMQP: each
/// connection becomes a synthesized IPv4/TCP connection from <c>127.0.0.1:(ClientPortBase + connectionId)</c> to
/// <c>127.0.0.1:5672</c>, with a three-way handshake at the log's start, the client's 8-byte protocol header
/// ("AMQP" 0 0 9 1, not a frame, so not in the log) synthesized at offset 0, and one TCP segment per frame.
/// </summary>
/// <remarks>
/// TCP sequence numbers follow each frame's <see cref="FrameRecord.WireOffset"/> exactly, so a gap in the log (say,
/// sent frames not recorded) shows as a gap in the stream, and acknowledgments carry what the other side had sent so
/// far. Packet times are the log's <see cref="FrameLog.StartedAt"/> plus each frame's
/// <see cref="FrameRecord.Timestamp"/> (kept non-decreasing within a connection); connections are merged by time. A
/// frame larger than one IPv4 packet is split over several segments. Body frames whose payload was not captured are
/// written as <see cref="PcapExportOptions.UncapturedBodies"/> says; frames larger than 16 MiB without a payload are
/// always truncated. The frame-end octet of a frame recorded with <see cref="FrameRecord.FrameEndValid"/> false is
/// written as 0x00.
/// </remarks>
public static class PcapExporter
{
    private const int ZeroFillLimit = 16 << 20;

    /// <summary>Writes the capture of <paramref name="logs"/> to <paramref name="output"/> (left open) and flushes
    /// it.</summary>
    public static void Write(Stream output, IEnumerable<FrameLogSnapshot> logs, PcapExportOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(logs);
        options ??= PcapExportOptions.Default;
        List<List<Packet>> connections = [.. logs.Select(log => Plan(log, options))];
        var writer = new PcapFileWriter(output);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(PcapFileWriter.MaxSegmentPayload);
        try
        {
            foreach (Packet packet in MergeByTime(connections))
            {
                Span<byte> captured = buffer.AsSpan(0, packet.CapturedLength);
                FillCaptured(packet, captured);
                writer.WriteSegment(packet.Time, packet.Tcp, captured, packet.Length);
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
        output.Flush();
    }

    /// <summary>Writes the capture of what <paramref name="log"/> holds now.</summary>
    public static void Write(Stream output, FrameLog log, PcapExportOptions? options = null) =>
        Write(output, [FrameLogSnapshot.From(log)], options);

    /// <summary>Writes the capture of <paramref name="logs"/> to a new file at <paramref name="path"/> (replacing
    /// any).</summary>
    public static void WriteFile(string path, IEnumerable<FrameLogSnapshot> logs, PcapExportOptions? options = null)
    {
        using var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 64 * 1024);
        Write(file, logs, options);
    }

    private static List<Packet> Plan(FrameLogSnapshot log, PcapExportOptions options)
    {
        var packets = new List<Packet>(log.Frames.Count + 4);
        var client = new Endpoint(
            options.ClientAddress,
            options.ClientPort(log.ConnectionId),
            (uint)(0x10000000 + log.ConnectionId * 0x10000)
        );
        var server = new Endpoint(
            options.ServerAddress,
            options.ServerPort,
            (uint)(0x60000000 + log.ConnectionId * 0x10000)
        );
        DateTimeOffset time = log.StartedAt;

        // Three-way handshake: the data of each side starts at its ISN + 1.
        packets.Add(Control(time, client, server, client.Isn, 0, TcpFlags.Syn));
        packets.Add(Control(time, server, client, server.Isn, client.Isn + 1, TcpFlags.Syn | TcpFlags.Ack));
        packets.Add(Control(time, client, server, client.Isn + 1, server.Isn + 1, TcpFlags.Ack));

        long clientNext = 0,
            serverNext = 0; // stream offsets sent so far, per direction
        foreach (FrameRecord frame in log.Frames)
        {
            bool fromClient = frame.Direction == FrameDirection.Received;
            (Endpoint from, Endpoint to) = fromClient ? (client, server) : (server, client);
            DateTimeOffset frameTime = log.StartedAt + frame.Timestamp;
            if (frameTime > time)
                time = frameTime;

            if (fromClient && clientNext == 0 && frame.WireOffset >= AmqpConstants.ProtocolHeader.Length)
            {
                int headerLength = AmqpConstants.ProtocolHeader.Length;
                packets.Add(
                    new Packet(
                        time,
                        Tcp(
                            client,
                            server,
                            client.Isn + 1,
                            server.Isn + 1 + (uint)serverNext,
                            TcpFlags.Psh | TcpFlags.Ack
                        ),
                        null,
                        0,
                        headerLength,
                        headerLength
                    )
                );
                clientNext = headerLength;
            }

            long wireLength = frame.WireLength;
            long captured = CapturedLength(frame, options.UncapturedBodies);
            long otherNext = fromClient ? serverNext : clientNext;
            for (long start = 0; start < wireLength; start += PcapFileWriter.MaxSegmentPayload)
            {
                int length = (int)Math.Min(PcapFileWriter.MaxSegmentPayload, wireLength - start);
                int capturedHere = (int)Math.Clamp(captured - start, 0, length);
                bool last = start + length == wireLength;
                var tcp = Tcp(
                    from,
                    to,
                    from.Isn + 1 + (uint)(frame.WireOffset + start),
                    to.Isn + 1 + (uint)otherNext,
                    last ? TcpFlags.Psh | TcpFlags.Ack : TcpFlags.Ack
                );
                packets.Add(new Packet(time, tcp, frame, start, capturedHere, length));
            }
            long end = frame.WireOffset + wireLength;
            if (fromClient)
                clientNext = Math.Max(clientNext, end);
            else
                serverNext = Math.Max(serverNext, end);
        }
        return packets;
    }

    /// <summary>How many of the frame's wire bytes go into the file.</summary>
    private static long CapturedLength(FrameRecord frame, PcapUncapturedBodies policy)
    {
        if (frame.Payload is not null)
            return frame.WireLength;
        bool zeroFill = policy == PcapUncapturedBodies.ZeroFill && frame.Size <= ZeroFillLimit;
        return zeroFill ? frame.WireLength : Math.Min(AmqpConstants.FrameHeaderSize, frame.WireLength);
    }

    /// <summary>Fills <paramref name="destination"/> with the captured bytes of <paramref name="packet"/>: the frame's
    /// header, its payload (zeros where not recorded) and its frame-end octet, from the packet's offset in the
    /// frame.</summary>
    private static void FillCaptured(in Packet packet, Span<byte> destination)
    {
        if (packet.Frame is not { } frame)
        {
            AmqpConstants.ProtocolHeader[..destination.Length].CopyTo(destination);
            return;
        }
        Span<byte> header = stackalloc byte[AmqpConstants.FrameHeaderSize];
        FrameFormat.WriteHeader(header, frame.Type, frame.Channel, frame.Size);
        ReadOnlySpan<byte> payload = frame.Payload is { } p ? p.Span : [];
        long payloadEnd = AmqpConstants.FrameHeaderSize + (long)frame.Size;
        destination.Clear();
        for (int i = 0; i < destination.Length; )
        {
            long position = packet.FrameOffset + i;
            if (position < AmqpConstants.FrameHeaderSize)
            {
                destination[i++] = header[(int)position];
            }
            else if (position < payloadEnd)
            {
                long payloadIndex = position - AmqpConstants.FrameHeaderSize;
                int run = (int)Math.Min(destination.Length - i, payloadEnd - position);
                if (payloadIndex < payload.Length)
                {
                    int copy = (int)Math.Min(run, payload.Length - payloadIndex);
                    payload.Slice((int)payloadIndex, copy).CopyTo(destination[i..]);
                    run = copy;
                }
                i += run; // beyond the recorded payload: stays zero
            }
            else
            {
                destination[i++] = frame.FrameEndValid ? AmqpConstants.FrameEnd : (byte)0;
            }
        }
    }

    private static IEnumerable<Packet> MergeByTime(List<List<Packet>> connections)
    {
        var heads = new PriorityQueue<(int Connection, int Index), (DateTimeOffset Time, int Connection)>();
        for (int c = 0; c < connections.Count; c++)
            if (connections[c].Count > 0)
                heads.Enqueue((c, 0), (connections[c][0].Time, c));
        while (heads.TryDequeue(out var head, out _))
        {
            List<Packet> packets = connections[head.Connection];
            yield return packets[head.Index];
            int next = head.Index + 1;
            if (next < packets.Count)
                heads.Enqueue((head.Connection, next), (packets[next].Time, head.Connection));
        }
    }

    private static Packet Control(
        DateTimeOffset time,
        Endpoint from,
        Endpoint to,
        uint sequence,
        uint ack,
        TcpFlags flags
    ) => new(time, Tcp(from, to, sequence, ack, flags), null, 0, 0, 0);

    private static TcpSegmentHeader Tcp(Endpoint from, Endpoint to, uint sequence, uint ack, TcpFlags flags) =>
        new(from.Address, from.Port, to.Address, to.Port, sequence, ack, flags);

    private readonly record struct Endpoint(System.Net.IPAddress Address, ushort Port, uint Isn);

    /// <summary>One planned packet: its TCP header and which bytes of which frame it carries
    /// (<see cref="Frame"/> null: the protocol header, or none for a control segment).</summary>
    private readonly record struct Packet(
        DateTimeOffset Time,
        TcpSegmentHeader Tcp,
        FrameRecord? Frame,
        long FrameOffset,
        int CapturedLength,
        int Length
    );
}
