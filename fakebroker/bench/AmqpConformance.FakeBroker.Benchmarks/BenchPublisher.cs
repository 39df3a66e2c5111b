using AmqpConformance.Protocol;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>What the benchmarks do with a raw <see cref="AmqpTestClient"/> beyond connecting
/// (<see cref="AmqpTestClient.ConnectAsync(string, int, CancellationToken)"/> for the raw sink,
/// <see cref="AmqpTestClient.ConnectOpenAsync"/> for the broker: handshake and channel 1).</summary>
internal static class BenchPublisher
{
    /// <summary>Writes <paramref name="batch"/> <paramref name="repeats"/> times, as fast as the transport takes it,
    /// straight to the socket (<see cref="AmqpPeer.SendUnbufferedAsync"/>): the publisher copies nothing and allocates
    /// nothing per write, so what the benchmark measures and counts is the receiving side's.</summary>
    public static async Task BlastAsync(this AmqpPeer publisher, byte[] batch, int repeats, CancellationToken ct)
    {
        for (int i = 0; i < repeats; i++)
            await publisher.SendUnbufferedAsync(batch, ct);
    }

    /// <summary>A round trip (basic.qos / qos-ok on channel 1) behind everything written so far: when it returns, the
    /// broker has handled every earlier frame, because it handles a connection's frames in order.</summary>
    public static async Task SyncAsync(this AmqpTestClient publisher, CancellationToken ct)
    {
        await publisher.SendMethodAsync(1, new BasicQos { PrefetchCount = 1 }, ct);
        await publisher.ExpectAsync<BasicQosOk>(ct);
    }

    /// <summary>Whether <paramref name="failure"/> is the broker closing with 541 INTERNAL_ERROR (it failed, e.g. out
    /// of memory).</summary>
    public static bool IsInternalError(Exception failure) =>
        failure is PeerExpectationException { Method: ConnectionClose { ReplyCode: 541 } };
}
