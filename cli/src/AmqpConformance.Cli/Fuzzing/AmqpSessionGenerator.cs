using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Cli.Fuzzing;

/// <summary>
/// Builds a valid client session for the fake broker from a seeded <see cref="Random"/>: the protocol header, the
/// handshake (PLAIN guest/guest, a random tune-ok), then a random mix of channel, exchange, queue, publish (with
/// properties and bodies split at frame_max), consume, get, ack/nack/reject, recover, purge, delete and heartbeat
/// frames on up to three channels, and usually connection.close. Names carry <c>tag</c> so concurrent sessions do not
/// share queues and exchanges (a case then replays the same whatever runs beside it).
/// </summary>
internal static class AmqpSessionGenerator
{
    /// <summary>The session: element 0 is the 8-byte protocol header, every other element one whole frame; and the
    /// frame_max its tune-ok asks for (0 = unlimited, which only a broker offering 0 accepts).</summary>
    public static (List<byte[]> Frames, int FrameMax) Generate(Random random, string tag)
    {
        var frames = new List<byte[]> { AmqpConstants.ProtocolHeader.ToArray() };
        int frameMax = random.Next(4) switch
        {
            0 => 4096,
            1 => 131072,
            2 => 0,
            _ => random.Next(4096, 65537),
        };
        frames.Add(
            Method(
                0,
                new ConnectionStartOk
                {
                    ClientProperties = new FieldTable
                    {
                        ["product"] = "fuzz",
                        ["capabilities"] = new FieldTable { ["consumer_cancel_notify"] = random.Next(2) == 0 },
                    },
                    Response = "\0guest\0guest"u8.ToArray(),
                }
            )
        );
        frames.Add(
            Method(
                0,
                new ConnectionTuneOk
                {
                    ChannelMax = (ushort)random.Next(1, 2048),
                    FrameMax = (uint)frameMax,
                    Heartbeat = 0,
                }
            )
        );
        frames.Add(Method(0, new ConnectionOpen()));
        int maxBody = frameMax == 0 ? 200_000 : frameMax - AmqpConstants.FrameOverhead;
        string queue = "q-" + tag,
            exchange = "x-" + tag;
        var open = new HashSet<ushort>();
        int steps = random.Next(1, 25);
        for (int i = 0; i < steps; i++)
        {
            ushort ch = (ushort)random.Next(1, 4);
            if (open.Add(ch))
                frames.Add(Method(ch, new ChannelOpen()));
            switch (random.Next(16))
            {
                case 0:
                    frames.Add(Method(ch, new ConfirmSelect()));
                    break;
                // Mostly exclusive, so the queue (and what was routed to it) goes with the connection: a long run stays
                // flat.
                case 1:
                    frames.Add(
                        Method(
                            ch,
                            new QueueDeclare
                            {
                                Queue = queue,
                                AutoDelete = random.Next(2) == 0,
                                Exclusive = random.Next(8) != 0,
                            }
                        )
                    );
                    break;
                case 2:
                    frames.Add(
                        Method(
                            ch,
                            new ExchangeDeclare
                            {
                                Exchange = exchange,
                                Type = Pick(random, "direct", "fanout", "topic", "headers"),
                            }
                        )
                    );
                    frames.Add(
                        Method(
                            ch,
                            new QueueBind
                            {
                                Queue = queue,
                                Exchange = exchange,
                                RoutingKey = Pick(random, "#", "k", "*.k", ""),
                            }
                        )
                    );
                    break;
                case 3:
                case 4:
                case 5:
                    Publish(
                        frames,
                        random,
                        ch,
                        Pick(random, "", exchange, "amq.topic", "amq.fanout"),
                        Pick(random, queue, "k", "a.k"),
                        maxBody
                    );
                    break;
                case 6:
                    frames.Add(
                        Method(
                            ch,
                            new BasicQos { PrefetchCount = (ushort)random.Next(0, 5), Global = random.Next(2) == 0 }
                        )
                    );
                    break;
                case 7:
                    frames.Add(
                        Method(
                            ch,
                            new BasicConsume
                            {
                                Queue = queue,
                                NoAck = random.Next(2) == 0,
                                ConsumerTag = random.Next(2) == 0 ? "" : "c-" + tag,
                            }
                        )
                    );
                    break;
                case 8:
                    frames.Add(Method(ch, new BasicGet { Queue = queue, NoAck = random.Next(2) == 0 }));
                    break;
                case 9:
                    frames.Add(
                        Method(
                            ch,
                            new BasicAck { DeliveryTag = (ulong)random.Next(0, 4), Multiple = random.Next(2) == 0 }
                        )
                    );
                    break;
                case 10:
                    frames.Add(
                        Method(
                            ch,
                            new BasicNack
                            {
                                DeliveryTag = (ulong)random.Next(0, 4),
                                Multiple = random.Next(2) == 0,
                                Requeue = random.Next(2) == 0,
                            }
                        )
                    );
                    break;
                case 11:
                    frames.Add(
                        Method(
                            ch,
                            new BasicReject { DeliveryTag = (ulong)random.Next(0, 4), Requeue = random.Next(2) == 0 }
                        )
                    );
                    break;
                case 12:
                    frames.Add(Method(ch, new BasicRecover { Requeue = true }));
                    break;
                case 13:
                    frames.Add(
                        Method(
                            ch,
                            random.Next(2) == 0 ? new QueuePurge { Queue = queue } : new QueueDelete { Queue = queue }
                        )
                    );
                    break;
                case 14:
                    frames.Add(Frame(FrameType.Heartbeat, 0, []));
                    break;
                default:
                    frames.Add(Method(ch, new ChannelClose { ReplyCode = 200, ReplyText = "bye" }));
                    open.Remove(ch);
                    break;
            }
        }
        if (random.Next(2) == 0)
            frames.Add(Method((ushort)random.Next(1, 4), new QueueDelete { Queue = queue }));
        if (random.Next(8) != 0)
            frames.Add(Method(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }));
        if (random.Next(8) == 0)
            frames.Add(Method(0, new ConnectionCloseOk()));
        return (frames, frameMax);
    }

    private static void Publish(
        List<byte[]> frames,
        Random random,
        ushort channel,
        string exchange,
        string routingKey,
        int maxBody
    )
    {
        int size = random.Next(6) switch
        {
            0 => 0,
            1 => random.Next(1, 64),
            2 => maxBody + random.Next(-1, 2),
            3 => random.Next(1, 3 * Math.Min(maxBody, 70_000)),
            _ => random.Next(1, 2048),
        };
        size = Math.Max(0, size);
        frames.Add(
            Method(
                channel,
                new BasicPublish
                {
                    Exchange = exchange,
                    RoutingKey = routingKey,
                    Mandatory = random.Next(3) == 0,
                }
            )
        );
        var properties =
            random.Next(3) == 0
                ? BasicProperties.Empty
                : new BasicProperties
                {
                    ContentType = "application/octet-stream",
                    DeliveryMode = (byte)random.Next(1, 3),
                    MessageId = random.Next().ToString(System.Globalization.CultureInfo.InvariantCulture),
                    Headers = new FieldTable
                    {
                        ["n"] = random.Next(),
                        ["s"] = "v",
                        ["t"] = new FieldTable { ["x"] = 1.5 },
                    },
                };
        var header = new ContentHeader((ulong)size, properties);
        byte[] headerPayload = new byte[header.EncodedLength()];
        header.Encode(headerPayload);
        frames.Add(Frame(FrameType.Header, channel, headerPayload));
        byte[] body = new byte[size];
        random.NextBytes(body);
        for (int offset = 0; offset < size; offset += maxBody)
            frames.Add(Frame(FrameType.Body, channel, body.AsSpan(offset, Math.Min(maxBody, size - offset))));
    }

    private static string Pick(Random random, params string[] choices) => choices[random.Next(choices.Length)];

    /// <summary>A method frame.</summary>
    public static byte[] Method(ushort channel, IAmqpMethod method) =>
        Frame(FrameType.Method, channel, MethodCodec.ToPayload(method));

    /// <summary>A frame with a correct size field and frame-end octet.</summary>
    public static byte[] Frame(FrameType type, ushort channel, ReadOnlySpan<byte> payload)
    {
        var output = new ArrayBufferWriter<byte>(payload.Length + AmqpConstants.FrameOverhead);
        FrameFormat.WriteFrame(output, type, channel, payload);
        return output.WrittenSpan.ToArray();
    }
}
