using System.Buffers;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>One way of getting publishes onto the sink: a reference writer, or the raw pre-serialized
/// baseline.</summary>
internal sealed record BenchMode(string Name, FrameWriterFactory? Factory)
{
    /// <summary>The frame_max every benchmark negotiates: 131072, RabbitMQ's default.</summary>
    public const int FrameMax = 131072;

    public static readonly BenchMode Raw = new("Raw", null);

    public static IReadOnlyList<BenchMode> All { get; } =
    [
        new("Background", WriterModes.Background),
        new("Inline", WriterModes.Inline),
        new("Coalescing", WriterModes.Coalescing),
        Raw,
    ];

    /// <summary>What the publishers publish, built before anything is measured: one body per publisher, the
    /// serialized method + content header frames of its publish (as <see cref="CommandBuilder"/> makes them), and for
    /// the raw mode one whole wire image per publisher.</summary>
    /// <summary>The mode called <paramref name="name"/> (as in <see cref="All"/>).</summary>
    public static BenchMode Named(string name) =>
        All.SingleOrDefault(m => m.Name == name)
        ?? throw new ArgumentException(
            $"unknown mode '{name}'; known: {string.Join(", ", All.Select(m => m.Name))}",
            nameof(name)
        );

    public sealed record Payloads(byte[][] Bodies, byte[][] Frames, byte[][]? WireImages);

    public Payloads Prepare(int publishers, int bodySize, int frameMax)
    {
        var bodies = new byte[publishers][];
        var frames = new byte[publishers][];
        for (int p = 0; p < publishers; p++)
        {
            bodies[p] = new byte[bodySize];
            bodies[p].AsSpan().Fill((byte)(p + 1));
            var command = CommandBuilder.BuildPublish(
                ArrayPool<byte>.Shared,
                frameMax,
                1,
                "",
                "bench",
                false,
                null,
                bodies[p]
            );
            frames[p] = command.Frames.ToArray();
            command.Release(ArrayPool<byte>.Shared);
        }
        return new Payloads(bodies, frames, Factory is null ? [.. bodies.Select(b => WireImage(frameMax, b))] : null);
    }

    /// <summary>A command as a client hands it to its writer: the frames copied into a buffer rented from
    /// <paramref name="pool"/> (what <see cref="CommandBuilder"/> does, minus its serialization, which costs every mode
    /// the same and is left out so the table compares writers), and the caller's body, not copied.</summary>
    private static OutgoingCommand Command(ArrayPool<byte> pool, byte[] frames, byte[] body)
    {
        byte[] rented = pool.Rent(frames.Length);
        frames.CopyTo(rented, 0);
        return new OutgoingCommand(1, rented, frames.Length, hasContent: true, body);
    }

    /// <summary>Publishes <paramref name="perPublisher"/> messages from each publisher task through this mode into
    /// <paramref name="sink"/>, then disposes the writer (so every byte is out). Returns the flushes issued.</summary>
    public async Task<long> RunAsync(
        DiscardingSink sink,
        ArrayPool<byte> pool,
        int frameMax,
        Payloads payloads,
        int perPublisher
    )
    {
        int publishers = payloads.Bodies.Length;
        if (Factory is null)
        {
            var raw = new RawPreserializedWriter(sink.Writer);
            await Task.WhenAll(
                    Enumerable
                        .Range(0, publishers)
                        .Select(p =>
                            Task.Run(async () =>
                            {
                                byte[] image = payloads.WireImages![p];
                                for (int i = 0; i < perPublisher; i++)
                                    await raw.WriteAsync(image).ConfigureAwait(false);
                            })
                        )
                )
                .ConfigureAwait(false);
            return (long)publishers * perPublisher;
        }
        var writer = Factory.CreateWriter(new WriterContext(sink.Writer, pool, frameMax));
        await Task.WhenAll(
                Enumerable
                    .Range(0, publishers)
                    .Select(p =>
                        Task.Run(async () =>
                        {
                            byte[] body = payloads.Bodies[p],
                                frames = payloads.Frames[p];
                            for (int i = 0; i < perPublisher; i++)
                                await writer.WriteAsync(Command(pool, frames, body)).ConfigureAwait(false);
                        })
                    )
            )
            .ConfigureAwait(false);
        await writer.DisposeAsync().ConfigureAwait(false);
        return writer switch
        {
            BackgroundChannelWriter b => b.FlushCount,
            InlineSemaphoreWriter i => i.FlushCount,
            CoalescingWriter c => c.FlushCount,
            _ => 0,
        };
    }

    private static byte[] WireImage(int frameMax, byte[] body)
    {
        var command = CommandBuilder.BuildPublish(ArrayPool<byte>.Shared, frameMax, 1, "", "bench", false, null, body);
        var image = new ArrayBufferWriter<byte>((int)command.WireLength(frameMax));
        CommandFraming.Write(image, command, body, frameMax);
        command.Release(ArrayPool<byte>.Shared);
        return image.WrittenSpan.ToArray();
    }
}
