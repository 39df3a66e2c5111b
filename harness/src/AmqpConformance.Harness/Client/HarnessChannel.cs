using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Client;

/// <summary>
/// One channel of a <see cref="HarnessConnection"/>: publishes through the connection's writer and, in confirm mode,
/// tracks publisher confirms.
/// </summary>
/// <remarks>
/// <para><b>Confirms:</b> after confirm.select, each publish gets the next sequence number (1, 2, ...). The broker
/// numbers publishes in the order they reach it, so in confirm mode the channel serializes its publishes (a per-channel
/// lock held from numbering until the writer's call completes): the writer's per-caller order then makes wire order
/// equal number order. A publish cancelled before it reached the wire gives its number back. basic.ack and basic.nack
/// settle one number or, with multiple=true, every outstanding number up to the tag.</para>
/// <para>Without confirms, publishes from many tasks go to the writer concurrently, with no lock in the client.</para>
/// </remarks>
public sealed class HarnessChannel
{
    private readonly HarnessConnection _connection;
    private readonly object _gate = new();
    private readonly SemaphoreSlim _confirmPublishLock = new(1, 1);
    private readonly SortedSet<ulong> _outstanding = [];
    private readonly Dictionary<ulong, bool> _outcomes = [];
    private readonly List<(ulong UpTo, TaskCompletionSource<bool> Waiter)> _confirmWaiters = [];
    private TaskCompletionSource<IAmqpMethod>? _pendingRequest;
    private Exception? _fault;
    private ulong _nextSequence;
    private volatile bool _confirms;

    internal HarnessChannel(HarnessConnection connection, ushort number)
    {
        _connection = connection;
        Number = number;
    }

    /// <summary>The channel number.</summary>
    public ushort Number { get; }

    /// <summary>Whether the channel is in confirm mode.</summary>
    public bool ConfirmsEnabled => _confirms;

    /// <summary>The sequence number the next publish will get in confirm mode (1 right after confirm.select).</summary>
    public ulong NextPublishSequence
    {
        get
        {
            lock (_gate)
                return _nextSequence;
        }
    }

    /// <summary>Why the channel failed (its connection failed, or the broker closed it), or null.</summary>
    public Exception? Fault
    {
        get
        {
            lock (_gate)
                return _fault;
        }
    }

    /// <summary>Every settled confirm so far: sequence number to true (ack) or false (nack).</summary>
    public IReadOnlyDictionary<ulong, bool> Confirmations
    {
        get
        {
            lock (_gate)
                return new Dictionary<ulong, bool>(_outcomes);
        }
    }

    /// <summary>
    /// Publishes one message through the connection's writer. Completes when the writer's call completes (see the
    /// writer's documentation: on enqueue, or after the flush).
    /// </summary>
    /// <param name="exchange">Exchange name ("" = default exchange).</param>
    /// <param name="routingKey">Routing key.</param>
    /// <param name="body">The body; not copied by the client. How long the writer may read it is the writer's
    /// contract.</param>
    /// <param name="properties">Content properties, or null for none.</param>
    /// <param name="bodyOwner">Optional owner of <paramref name="body"/>'s memory. It is always disposed exactly once:
    /// by the writer after the body is out (or given up), or here if the publish fails before reaching the
    /// writer.</param>
    /// <param name="mandatory">The mandatory flag.</param>
    /// <param name="cancellationToken">Cancels the publish; all or nothing, as the writer's contract says.</param>
    /// <returns>The publish's confirm sequence number, or 0 when the channel is not in confirm mode.</returns>
    /// <exception cref="HarnessConnectionException">The channel or connection has failed.</exception>
    public async ValueTask<ulong> PublishAsync(
        string exchange,
        string routingKey,
        ReadOnlyMemory<byte> body,
        BasicProperties? properties = null,
        IDisposable? bodyOwner = null,
        bool mandatory = false,
        CancellationToken cancellationToken = default
    )
    {
        try
        {
            ThrowIfFailed();
        }
        catch
        {
            bodyOwner?.Dispose();
            throw;
        }
        if (!_confirms)
        {
            await _connection
                .PublishAsync(Number, exchange, routingKey, mandatory, properties, body, bodyOwner, cancellationToken)
                .ConfigureAwait(false);
            return 0;
        }

        try
        {
            await _confirmPublishLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            bodyOwner?.Dispose();
            throw;
        }
        try
        {
            ulong sequence;
            lock (_gate)
            {
                sequence = _nextSequence++;
                _outstanding.Add(sequence);
            }
            try
            {
                await _connection
                    .PublishAsync(
                        Number,
                        exchange,
                        routingKey,
                        mandatory,
                        properties,
                        body,
                        bodyOwner,
                        cancellationToken
                    )
                    .ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is OperationCanceledException or ArgumentException)
            {
                lock (_gate)
                {
                    _outstanding.Remove(sequence);
                    _nextSequence--; // nothing of it reached the wire (bad arguments, or the writer's all-or-nothing cancellation)
                }
                throw;
            }
            return sequence;
        }
        finally
        {
            _confirmPublishLock.Release();
        }
    }

    /// <summary>
    /// Waits until every publish made so far on this channel is acked or nacked; true when all were acked.
    /// </summary>
    /// <exception cref="InvalidOperationException">The channel is not in confirm mode.</exception>
    /// <exception cref="HarnessConnectionException">The channel failed before all were settled.</exception>
    public Task<bool> WaitForConfirmsAsync(CancellationToken cancellationToken = default)
    {
        if (!_confirms)
            throw new InvalidOperationException("The channel is not in confirm mode (open it with confirms: true).");
        lock (_gate)
        {
            if (_fault is not null)
                return Task.FromException<bool>(_fault);
            ulong upTo = _nextSequence - 1;
            if (IsSettled(upTo))
                return Task.FromResult(AllAcked(upTo));
            var waiter = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            _confirmWaiters.Add((upTo, waiter));
            return waiter.Task.WaitAsync(cancellationToken);
        }
    }

    /// <summary>Closes the channel (channel.close through the writer, waits for close-ok).</summary>
    public async Task CloseAsync(CancellationToken cancellationToken = default)
    {
        await RequestAsync<ChannelCloseOk>(
                new ChannelClose { ReplyCode = 200, ReplyText = "Goodbye" },
                cancellationToken
            )
            .ConfigureAwait(false);
        Fail(new HarnessConnectionException($"Channel {Number} was closed by the client."));
        _connection.ForgetChannel(Number);
    }

    internal Task OpenAsync(CancellationToken cancellationToken) =>
        RequestAsync<ChannelOpenOk>(new ChannelOpen(), cancellationToken);

    internal async Task EnableConfirmsAsync(CancellationToken cancellationToken)
    {
        await RequestAsync<ConfirmSelectOk>(new ConfirmSelect(), cancellationToken).ConfigureAwait(false);
        lock (_gate)
            _nextSequence = 1;
        _confirms = true;
    }

    internal void HandleMethod(IAmqpMethod method)
    {
        switch (method)
        {
            case BasicAck ack:
                Settle(ack.DeliveryTag, ack.Multiple, acked: true);
                break;
            case BasicNack nack:
                Settle(nack.DeliveryTag, nack.Multiple, acked: false);
                break;
            case ChannelClose close:
                Fail(
                    new HarnessConnectionException(
                        $"The broker closed channel {Number}: {close.ReplyCode} {close.ReplyText}.",
                        replyCode: close.ReplyCode,
                        replyText: close.ReplyText
                    )
                );
                _ = _connection.ReplyBestEffortAsync(Number, new ChannelCloseOk());
                _connection.ForgetChannel(Number);
                break;
            case ChannelOpenOk or ConfirmSelectOk or ChannelCloseOk:
                TaskCompletionSource<IAmqpMethod>? pending;
                lock (_gate)
                {
                    pending = _pendingRequest;
                    _pendingRequest = null;
                }
                pending?.TrySetResult(method);
                break;
        }
    }

    internal void Fail(Exception fault)
    {
        TaskCompletionSource<IAmqpMethod>? pending;
        List<(ulong, TaskCompletionSource<bool> Waiter)> waiters;
        lock (_gate)
        {
            if (_fault is not null)
                return;
            _fault = fault;
            pending = _pendingRequest;
            _pendingRequest = null;
            waiters = [.. _confirmWaiters];
            _confirmWaiters.Clear();
        }
        pending?.TrySetException(fault);
        foreach (var (_, waiter) in waiters)
            waiter.TrySetException(fault);
    }

    private async Task RequestAsync<TReply>(IAmqpMethod request, CancellationToken cancellationToken)
        where TReply : IAmqpMethod
    {
        var reply = new TaskCompletionSource<IAmqpMethod>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_gate)
        {
            if (_fault is not null)
                throw _fault;
            if (_pendingRequest is not null)
                throw new InvalidOperationException($"Channel {Number} already has a request in flight.");
            _pendingRequest = reply;
        }
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(_connection.Options.RequestTimeout);
        try
        {
            await _connection.SendAsync(Number, request, timeout.Token).ConfigureAwait(false);
            var answer = await reply.Task.WaitAsync(timeout.Token).ConfigureAwait(false);
            if (answer is not TReply)
                throw new HarnessConnectionException(
                    $"Expected {typeof(TReply).Name} in reply to {request.Name} on channel {Number}, got {answer.Name}."
                );
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new HarnessConnectionException(
                $"The broker did not answer {request.Name} on channel {Number} within {_connection.Options.RequestTimeout.TotalSeconds:0.###} s."
            );
        }
        finally
        {
            lock (_gate)
                if (ReferenceEquals(_pendingRequest, reply))
                    _pendingRequest = null;
        }
    }

    private void Settle(ulong tag, bool multiple, bool acked)
    {
        List<TaskCompletionSource<bool>> ready = [];
        List<bool> results = [];
        lock (_gate)
        {
            if (multiple)
            {
                foreach (ulong sequence in _outstanding.GetViewBetween(0, tag).ToList())
                {
                    _outstanding.Remove(sequence);
                    _outcomes[sequence] = acked;
                }
            }
            else if (_outstanding.Remove(tag))
            {
                _outcomes[tag] = acked;
            }
            for (int i = _confirmWaiters.Count - 1; i >= 0; i--)
            {
                var (upTo, waiter) = _confirmWaiters[i];
                if (!IsSettled(upTo))
                    continue;
                ready.Add(waiter);
                results.Add(AllAcked(upTo));
                _confirmWaiters.RemoveAt(i);
            }
        }
        for (int i = 0; i < ready.Count; i++)
            ready[i].TrySetResult(results[i]);
    }

    private bool IsSettled(ulong upTo) => _outstanding.Count == 0 || _outstanding.Min > upTo;

    private bool AllAcked(ulong upTo) => !_outcomes.Any(o => o.Key <= upTo && !o.Value);

    private void ThrowIfFailed()
    {
        _connection.ThrowIfFailed();
        lock (_gate)
            if (_fault is not null)
                throw _fault;
    }
}
