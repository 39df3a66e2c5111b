using System.Net;
using AmqpConformance.Protocol;
using AmqpConformance.TestSupport;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// One connection publishing with confirms on, the same bytes against any broker: connect, handshake (guest/guest on
/// "/" unless told otherwise, the broker's frame_max, no heartbeats), channel.open 1, confirm.select, queue.declare of
/// a server-named, exclusive, auto-delete, non-durable queue, then <see cref="PublishAsync"/> writes basic.publish
/// commands to that queue through the default exchange, at most <c>window</c> unconfirmed at a time, while a second
/// task reads basic.ack / basic.nack (multiple or single) as they come. The command is serialized once by the codec
/// (<see cref="FrameBytes.Publish"/>), laid end to end as often as fit in 64 KiB, and written again and again with
/// <see cref="AmqpPeer.SendBytesAsync"/>: several commands in one write while the window allows, and a large one
/// straight from its array (not copied into the pipe's 4 KiB segments first).
/// </summary>
/// <remarks>
/// Routed to a queue on purpose: RabbitMQ confirms an unroutable publish as soon as its channel has routed it to
/// nothing, without any queue process involved, while a routed one is confirmed once the queue has taken it. Publishing
/// to a real queue makes both brokers store every message (RabbitMQ in the classic queue's memory, the fake broker in
/// its queue), which is what a client of either pays for. The queue is exclusive, so it goes away with the connection.
/// </remarks>
internal sealed class ConfirmPublisher : IAsyncDisposable
{
    private const ushort Channel = 1;
    private const int FlushBytes = 64 * 1024; // several small commands per flush; a large one alone

    private readonly AmqpTestClient _client;
    private readonly byte[] _commands; // _perWrite copies of one publish command, end to end
    private readonly int _commandLength;
    private readonly int _perWrite;
    private readonly int _window;

    private ConfirmPublisher(AmqpTestClient client, byte[] command, int bodySize, int window, string queue)
    {
        _client = client;
        _commandLength = command.Length;
        _perWrite = Math.Max(1, FlushBytes / command.Length);
        _commands = new byte[_perWrite * command.Length];
        for (int i = 0; i < _perWrite; i++)
            command.CopyTo(_commands, i * command.Length);
        BodySize = bodySize;
        _window = window;
        Queue = queue;
    }

    /// <summary>The body size of every publish.</summary>
    public int BodySize { get; }

    /// <summary>The server-named queue the publishes go to.</summary>
    public string Queue { get; }

    /// <summary>The broker's "product" and "version" server properties, as it announced them in
    /// connection.start.</summary>
    public string ServerProduct { get; private set; } = "";

    /// <summary>Connects and sets up the channel, confirms and the queue; nothing is published yet.</summary>
    /// <param name="endpoint">The broker.</param>
    /// <param name="handshake">Credentials and vhost (null: guest/guest on "/").</param>
    /// <param name="bodySize">The size of every body (random bytes, the same for every publish).</param>
    /// <param name="window">The most publishes written and not yet confirmed (at least 1).</param>
    /// <param name="ct">Cancels the whole setup.</param>
    /// <exception cref="PeerExpectationException">The broker refused a step (see its
    /// <see cref="PeerExpectationException.Method"/>).</exception>
    public static async Task<ConfirmPublisher> OpenAsync(
        EndPoint endpoint,
        TestPeerHandshake? handshake,
        int bodySize,
        int window,
        CancellationToken ct
    )
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(window, 1);
        AmqpTestClient client = await AmqpTestClient
            .ConnectOpenAsync(endpoint, ct, handshake, Channel)
            .ConfigureAwait(false);
        try
        {
            await client.SendMethodAsync(Channel, new ConfirmSelect(), ct).ConfigureAwait(false);
            await client.ExpectAsync<ConfirmSelectOk>(ct).ConfigureAwait(false);
            await client
                .SendMethodAsync(Channel, new QueueDeclare { Exclusive = true, AutoDelete = true }, ct)
                .ConfigureAwait(false);
            QueueDeclareOk declared = await client.ExpectAsync<QueueDeclareOk>(ct).ConfigureAwait(false);
            var body = new byte[bodySize];
            new Random(bodySize).NextBytes(body);
            int frameMax = (int)client.TuneOk!.FrameMax;
            byte[] command = FrameBytes.Publish(Channel, "", declared.Queue, body, frameMax);
            return new ConfirmPublisher(client, command, bodySize, window, declared.Queue)
            {
                ServerProduct = Describe(client.Start!),
            };
        }
        catch
        {
            await client.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Publishes <paramref name="messages"/> messages and returns once the broker has acked or nacked every
    /// one; returns how many it nacked.</summary>
    /// <exception cref="PeerExpectationException">The broker closed the channel or connection, or ended the
    /// stream.</exception>
    public async Task<long> PublishAsync(int messages, CancellationToken ct)
    {
        using var window = new SemaphoreSlim(_window, _window);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        long written = 0; // read by the confirm reader, to bound what a confirm may settle
        Task<long> confirms = Task.Run(
            async () =>
            {
                try
                {
                    return await ReadConfirmsAsync(
                            messages,
                            window,
                            () => (ulong)Volatile.Read(ref written),
                            stop.Token
                        )
                        .ConfigureAwait(false);
                }
                catch
                {
                    await stop.CancelAsync().ConfigureAwait(false); // the writer may wait for window slots that will never free
                    throw;
                }
            },
            CancellationToken.None
        );

        try
        {
            int sent = 0;
            while (sent < messages)
            {
                await window.WaitAsync(stop.Token).ConfigureAwait(false);
                int batch = 1;
                while (batch < _perWrite && sent + batch < messages && window.Wait(0))
                    batch++;
                Volatile.Write(ref written, written + batch);
                await _client
                    .SendUnbufferedAsync(_commands.AsMemory(0, batch * _commandLength), stop.Token)
                    .ConfigureAwait(false);
                sent += batch;
            }
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            // The reader failed and stopped the writer: its exception is the one to report (awaited below).
        }
        catch
        {
            // The writer failed (the transport broke, or the caller cancelled): stop the reader before the window it
            // releases into is disposed, and report the writer's failure.
            await stop.CancelAsync().ConfigureAwait(false);
            try
            {
                await confirms.ConfigureAwait(false);
            }
            catch (Exception)
            {
                // Secondary to the writer's failure.
            }
            throw;
        }
        return await confirms.ConfigureAwait(false);
    }

    /// <summary>Reads until every one of <paramref name="messages"/> publishes is settled, freeing window slots as
    /// confirms come; returns the nack count.</summary>
    private async Task<long> ReadConfirmsAsync(
        int messages,
        SemaphoreSlim window,
        Func<ulong> written,
        CancellationToken ct
    )
    {
        var tracker = new ConfirmTracker();
        while (tracker.Settled < messages)
        {
            ReceivedFrame frame = await _client.ReadFrameAsync(ct).ConfigureAwait(false)
                ?? throw new PeerExpectationException(
                    $"The broker ended the stream with {messages - tracker.Settled} publishes unconfirmed."
                );
            if (!frame.IsMethod)
                continue; // heartbeats
            int settled = frame.Method switch
            {
                BasicAck ack => tracker.Settle(ack.DeliveryTag, ack.Multiple, ack: true, written()),
                BasicNack nack => tracker.Settle(nack.DeliveryTag, nack.Multiple, ack: false, written()),
                ChannelClose or ConnectionClose => throw new PeerExpectationException(
                    $"The broker closed while publishing: {frame}.",
                    frame
                ),
                _ => 0, // e.g. connection.blocked / unblocked: confirms resume when the broker does
            };
            if (settled > 0)
                window.Release(settled);
        }
        return tracker.Nacked;
    }

    private static string Describe(ConnectionStart start)
    {
        string Property(string key) =>
            start.ServerProperties.TryGetValue(key, out FieldValue value) && value.Value is not null
                ? value.AsString()
                : "?";
        return $"{Property("product")} {Property("version")}";
    }

    /// <summary>Closes the connection (connection.close, then close-ok within 5 s; its exclusive queue goes with it)
    /// and disposes the transport; never throws.</summary>
    public async ValueTask DisposeAsync()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5));
        try
        {
            await _client.CloseAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (Exception)
        {
            // Already closed, or the broker did not answer: the transport goes anyway.
        }
        await _client.DisposeAsync().ConfigureAwait(false);
    }
}
