using System.Buffers;
using AmqpConformance.Protocol;
using static AmqpConformance.TestSupport.Wire;

namespace AmqpConformance.Harness.Tests.Writers;

using AmqpConformance.Harness.Writers;

public class CommandBuilderTests
{
    [Fact]
    public void Publish_frames_go_into_one_buffer_rented_from_the_given_pool()
    {
        var pool = new CountingArrayPool();
        byte[] body = [1, 2, 3, 4, 5];
        var properties = new BasicProperties { DeliveryMode = 2 };
        var command = CommandBuilder.Build(
            pool,
            4096,
            1,
            new BasicPublish { RoutingKey = "q", Mandatory = true },
            properties,
            body
        );

        Assert.Equal(1, pool.Rents);
        Assert.True(pool.IsOutstanding(command.RentedFrames));
        Assert.True(command.HasContent);
        Assert.Equal(1, command.Channel);
        Assert.True(body.AsMemory().Span == command.Body.Span); // referenced, not copied

        byte[] expected = Hex(
            "01 0001 0000000A 003C0028 0000 00 0171 01 CE" + "02 0001 0000000F 003C 0000 0000000000000005 1000 02 CE"
        );
        Assert.Equal(ToHex(expected), ToHex(command.Frames.Span));
        Assert.Equal(expected.Length + 5 + 8, command.WireLength(4096));

        command.Release(pool);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void Build_publish_matches_build_with_a_record()
    {
        var pool = new CountingArrayPool();
        var properties = new BasicProperties
        {
            ContentType = "text/plain",
            Headers = new FieldTable { ["a"] = "b" },
        };
        var viaRecord = CommandBuilder.Build(
            pool,
            0,
            7,
            new BasicPublish
            {
                Exchange = "ex",
                RoutingKey = "rk",
                Mandatory = true,
            },
            properties,
            new byte[9]
        );
        var viaPublish = CommandBuilder.BuildPublish(pool, 0, 7, "ex", "rk", mandatory: true, properties, new byte[9]);
        Assert.Equal(ToHex(viaRecord.Frames.Span), ToHex(viaPublish.Frames.Span));

        var stream = Capture(w =>
        {
            w.WriteMethodFrame(
                7,
                new BasicPublish
                {
                    Exchange = "ex",
                    RoutingKey = "rk",
                    Mandatory = true,
                }
            );
            w.WriteHeaderFrame(7, new ContentHeader(9, properties));
        });
        Assert.Equal(ToHex(stream), ToHex(viaPublish.Frames.Span));
        viaRecord.Release(pool);
        viaPublish.Release(pool);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void Method_without_content_gets_only_its_method_frame()
    {
        var pool = new CountingArrayPool();
        var command = CommandBuilder.Build(
            pool,
            4096,
            0,
            new ConnectionTuneOk
            {
                ChannelMax = 2047,
                FrameMax = 131072,
                Heartbeat = 60,
            }
        );
        Assert.False(command.HasContent);
        Assert.Equal(ToHex(Hex("01 0000 0000000C 000A001F 07FF 00020000 003C CE")), ToHex(command.Frames.Span));
        command.Release(pool);
    }

    [Fact]
    public void Oversize_header_frame_throws_and_leaves_nothing_rented()
    {
        var pool = new CountingArrayPool();
        var properties = new BasicProperties { Headers = new FieldTable { ["big"] = new string('x', 5000) } };
        var ex = Assert.Throws<ArgumentException>(() =>
            CommandBuilder.BuildPublish(pool, 4096, 1, "", "q", false, properties, new byte[1])
        );
        Assert.Contains("content header", ex.Message);
        Assert.Contains("4096", ex.Message);
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(pool.Rents, pool.Returns);
    }

    [Fact]
    public void Oversize_method_frame_throws_and_leaves_nothing_rented()
    {
        var pool = new CountingArrayPool();
        var method = new QueueDeclare
        {
            Queue = "q",
            Arguments = new FieldTable { ["x"] = new byte[5000] },
        };
        var ex = Assert.Throws<ArgumentException>(() => CommandBuilder.Build(pool, 4096, 1, method));
        Assert.Contains("method frame", ex.Message);
        Assert.Equal(0, pool.Outstanding);

        // The same method is fine when frame_max is unlimited.
        var command = CommandBuilder.Build(pool, 0, 1, method);
        Assert.Equal(method, MethodCodec.Decode(command.Frames.Span[7..^1]));
        command.Release(pool);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void Frame_exactly_at_frame_max_is_allowed()
    {
        var pool = new CountingArrayPool();
        // basic.publish with an empty exchange: payload 4 + 2 + 1 + (1 + n) + 1 = n + 9; frame = n + 17.
        string routingKey = new('k', 255);
        int frameMax = routingKey.Length + 17;
        var command = CommandBuilder.BuildPublish(pool, frameMax, 1, "", routingKey, false, null, default);
        command.Release(pool);
        Assert.Throws<ArgumentException>(() =>
            CommandBuilder.BuildPublish(pool, frameMax - 1, 1, "", routingKey, false, null, default)
        );
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void Body_or_properties_for_a_method_without_content_is_refused()
    {
        var pool = new CountingArrayPool();
        Assert.Contains(
            "body",
            Assert
                .Throws<ArgumentException>(() =>
                    CommandBuilder.Build(pool, 0, 1, new BasicAck { DeliveryTag = 1 }, body: new byte[1])
                )
                .Message
        );
        Assert.Throws<ArgumentException>(() =>
            CommandBuilder.Build(pool, 0, 1, new BasicAck { DeliveryTag = 1 }, properties: BasicProperties.Empty)
        );
        Assert.Equal(0, pool.Rents);
    }

    [Fact]
    public void Body_owner_travels_with_the_command_and_is_disposed_on_release()
    {
        var pool = new CountingArrayPool();
        var owner = new DisposeCounter();
        var command = CommandBuilder.BuildPublish(pool, 0, 1, "", "q", false, null, new byte[3], owner);
        Assert.Same(owner, command.BodyOwner);
        Assert.Equal(0, owner.Count);
        command.Release(pool);
        Assert.Equal(1, owner.Count);
    }

    [Fact]
    public void Building_allocates_nothing_besides_the_rental()
    {
        var pool = new SingleArrayPool(1024);
        var properties = new BasicProperties
        {
            ContentType = "application/octet-stream",
            DeliveryMode = 2,
            Headers = new FieldTable { ["n"] = 1, ["s"] = "v" },
        };
        var publish = new BasicPublish { Exchange = "ex", RoutingKey = "rk" };
        ReadOnlyMemory<byte> body = new byte[100];
        for (int i = 0; i < 10; i++) // warm up (JIT, static tables)
        {
            CommandBuilder.BuildPublish(pool, 4096, 1, "ex", "rk", false, properties, body).Release(pool);
            CommandBuilder.Build(pool, 4096, 1, publish, properties, body).Release(pool);
        }

        // The runtime itself may allocate on this thread now and then while it tiers the code up (7,480 B in one round
        // of a loaded run): the least a round of 100 builds allocates is what building costs, and it must be nothing.
        // A builder that allocates does so in every round.
        long least = long.MaxValue;
        for (int round = 0; round < 5 && least > 0; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 100; i++)
            {
                CommandBuilder.BuildPublish(pool, 4096, 1, "ex", "rk", false, properties, body).Release(pool);
                CommandBuilder.Build(pool, 4096, 1, publish, properties, body).Release(pool);
            }
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }
        Assert.Equal(0, least);
    }

    /// <summary>Hands out one preallocated array, so rents themselves allocate nothing.</summary>
    private sealed class SingleArrayPool(int size) : ArrayPool<byte>
    {
        private readonly byte[] _array = new byte[size];
        private bool _rented;

        public override byte[] Rent(int minimumLength)
        {
            if (_rented || minimumLength > _array.Length)
                throw new InvalidOperationException("Single array already rented or too small.");
            _rented = true;
            return _array;
        }

        public override void Return(byte[] array, bool clearArray = false)
        {
            if (!_rented || !ReferenceEquals(array, _array))
                throw new InvalidOperationException("Bad return.");
            _rented = false;
        }
    }

    private sealed class DisposeCounter : IDisposable
    {
        public int Count { get; private set; }

        public void Dispose() => Count++;
    }
}
