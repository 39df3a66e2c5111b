using System.Runtime.InteropServices;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Bodies;

/// <summary><see cref="BodySlab"/>: small bodies packed into shared pinned arrays, each kept byte-exact for good; and,
/// over a real connection, the stored messages' bodies are such slices and keep their bytes while later publishes fill
/// the slabs.</summary>
public sealed class BodySlabTests
{
    private static byte[] Filled(int length, byte fill)
    {
        var bytes = new byte[length];
        bytes.AsSpan().Fill(fill);
        return bytes;
    }

    private static ArraySegment<byte> Backing(ReadOnlyMemory<byte> memory)
    {
        Assert.True(MemoryMarshal.TryGetArray(memory, out ArraySegment<byte> segment));
        return segment;
    }

    [Fact]
    public void Bodies_are_packed_end_to_end_in_one_slab_and_each_keeps_its_bytes()
    {
        var slab = new BodySlab();
        var first = slab.Keep(Filled(100, 0x11));
        var second = slab.Keep(Filled(200, 0x22));

        Assert.Same(Backing(first).Array, Backing(second).Array);
        Assert.Equal(Backing(first).Offset + 100, Backing(second).Offset);
        Assert.Equal(Filled(100, 0x11), first.ToArray());
        Assert.Equal(Filled(200, 0x22), second.ToArray());
        Assert.Equal(1, slab.SlabsStarted);
    }

    [Fact]
    public void A_body_that_does_not_fit_starts_a_slab_twice_as_long_up_to_the_limit_and_leaves_earlier_bodies_alone()
    {
        var slab = new BodySlab();
        var kept = new List<(ReadOnlyMemory<byte> Body, byte Fill)>();
        var lengths = new List<int>();
        byte[]? current = null;
        for (int i = 0; i < 200; i++)
        {
            byte fill = (byte)i;
            var body = slab.Keep(Filled(BodySlab.MaxBodyLength, fill));
            kept.Add((body, fill));
            if (!ReferenceEquals(Backing(body).Array, current))
            {
                current = Backing(body).Array;
                lengths.Add(current!.Length);
            }
        }

        Assert.Equal(BodySlab.FirstSlabLength, lengths[0]);
        for (int i = 1; i < lengths.Count; i++)
            Assert.Equal(Math.Min(BodySlab.MaxSlabLength, lengths[i - 1] * 2), lengths[i]);
        Assert.Equal(BodySlab.MaxSlabLength, lengths[^1]);
        Assert.Equal(lengths.Count, slab.SlabsStarted);
        Assert.All(kept, k =>
            Assert.True(
                k.Body.Span.IndexOfAnyExcept(k.Fill) < 0 && k.Body.Length == BodySlab.MaxBodyLength,
                "a body kept earlier was overwritten when later ones were kept"
            )
        );
    }

    [Fact]
    public void An_empty_body_takes_no_room_and_one_over_the_limit_is_refused()
    {
        var slab = new BodySlab();
        Assert.True(slab.Keep([]).IsEmpty);
        Assert.Equal(0, slab.SlabsStarted);
        Assert.Throws<ArgumentOutOfRangeException>(() => slab.Keep(new byte[BodySlab.MaxBodyLength + 1]));
    }

    [Fact]
    public async Task Stored_small_bodies_share_slabs_and_stay_byte_exact_while_the_same_connection_publishes_on()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var ct = cts.Token;
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, KeepPublished = false },
            ct
        );
        await using var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct);
        await client.HandshakeAsync(cancellationToken: ct);
        await client.OpenChannelAsync(1, ct);
        await client.SendMethodAsync(1, new QueueDeclare { Queue = "q" }, ct);
        await client.ExpectAsync<QueueDeclareOk>(ct);

        const int Count = 300; // ~300 KB of bodies: several slabs
        for (int i = 0; i < Count; i++)
            await client.PublishAsync(1, "", "q", Filled(1000 + i, (byte)i), 131072, cancellationToken: ct);
        await client.SendMethodAsync(1, new BasicQos(), ct);
        await client.ExpectAsync<BasicQosOk>(ct);

        IReadOnlyList<DeliveredMessage> stored = broker.FindQueue("q")!.ReadyMessages();
        Assert.Equal(Count, stored.Count);
        for (int i = 0; i < Count; i++)
            Assert.True(
                stored[i].Body.Length == 1000 + i && stored[i].Body.Span.IndexOfAnyExcept((byte)i) < 0,
                $"message {i}'s body is not what was published"
            );
        Assert.Same(Backing(stored[0].Body).Array, Backing(stored[1].Body).Array); // packed, not an array each
        int arrays = stored.Select(m => Backing(m.Body).Array).Distinct().Count();
        Assert.InRange(arrays, 2, Count / 10);
        Assert.Empty(broker.Connections[0].Findings);
    }
}
