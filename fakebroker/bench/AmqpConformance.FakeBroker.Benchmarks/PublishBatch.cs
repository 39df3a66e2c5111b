using System.Buffers;
using AmqpConformance.TestSupport;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>Pre-serialized basic.publish commands (method, header, body frames split at frame_max - 8) on one channel,
/// laid end to end in one buffer that a client writes again and again.</summary>
internal sealed class PublishBatch
{
    public PublishBatch(int bodySize, int commands, int frameMax, ushort channel = 1)
    {
        var body = new byte[bodySize];
        new Random(bodySize).NextBytes(body);
        // Unroutable on purpose (no such queue, not mandatory): the broker parses, validates, records and drops,
        // so the numbers are ingest, not queueing.
        byte[] command = FrameBytes.Publish(channel, "", "bench-nowhere", body, frameMax);
        var output = new ArrayBufferWriter<byte>(command.Length * commands);
        for (int i = 0; i < commands; i++)
            output.Write(command);
        Bytes = output.WrittenMemory.ToArray();
        BodySize = bodySize;
        Commands = commands;
        FramesPerCommand = 2 + (bodySize + frameMax - 9) / (frameMax - 8);
    }

    public byte[] Bytes { get; }
    public int BodySize { get; }
    public int Commands { get; }

    /// <summary>Frames one command takes: method, header, and the body split at frame_max - 8.</summary>
    public int FramesPerCommand { get; }
}
