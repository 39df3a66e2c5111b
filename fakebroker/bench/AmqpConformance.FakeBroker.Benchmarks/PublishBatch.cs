using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>Pre-serialized basic.publish commands (method, header, body frames split at frame_max - 8) on one channel,
/// laid end to end in one buffer that a client writes again and again.</summary>
internal sealed class PublishBatch
{
    public PublishBatch(int bodySize, int commands, int frameMax, ushort channel = 1)
    {
        var output = new ArrayBufferWriter<byte>();
        var body = new byte[bodySize];
        new Random(bodySize).NextBytes(body);
        var header = new ContentHeader((ulong)bodySize);
        var headerPayload = new byte[header.EncodedLength()];
        header.Encode(headerPayload);
        // Unroutable on purpose (no such queue, not mandatory): the broker parses, validates, records and drops,
        // so the numbers are ingest, not queueing.
        byte[] publish = MethodCodec.ToPayload(new BasicPublish { Exchange = "", RoutingKey = "bench-nowhere" });
        for (int i = 0; i < commands; i++)
        {
            FrameFormat.WriteFrame(output, FrameType.Method, channel, publish);
            FrameFormat.WriteFrame(output, FrameType.Header, channel, headerPayload);
            FrameFormat.WriteBodyFrames(output, channel, body, frameMax);
        }
        Bytes = output.WrittenMemory.ToArray();
        BodySize = bodySize;
        Commands = commands;
    }

    public byte[] Bytes { get; }
    public int BodySize { get; }
    public int Commands { get; }
}
