using System.Text;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>Runs a <see cref="ParityCase"/> against one server and reduces the server's reaction to a <see cref="ParityAnswer"/>.</summary>
internal static class ParityProbe
{
    /// <summary>How long a server gets to react to the bad bytes before the answer is <see cref="ParityAnswerKind.NoAnswer"/>.</summary>
    public static TimeSpan AnswerWait { get; } = TimeSpan.FromSeconds(5);

    public static async Task<ParityAnswer> RunAsync(ParityCase parityCase, string host, int port)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        CancellationToken ct = timeout.Token;
        await using RawAmqpClient client = await RawAmqpClient.ConnectAsync(host, port, ct);

        if (parityCase.Stage == ParityStage.ProtocolHeader)
        {
            await client.SendAsync(parityCase.Bytes(0), ct);
            return await ObserveAsync(client, ct);
        }

        await client.SendAsync(AmqpConstants.ProtocolHeader.ToArray(), ct);
        try
        {
            await client.ExpectMethodAsync<ConnectionStart>(ct);
            byte[] response = Encoding.UTF8.GetBytes($"\0guest\0{parityCase.Password}");
            FieldTable properties = parityCase.AuthenticationFailureClose
                ? FieldTable.Empty.With("capabilities", FieldValue.Table(FieldTable.Empty.With("authentication_failure_close", FieldValue.Boolean(true))))
                : FieldTable.Empty;
            await client.SendMethodAsync(0, new ConnectionStartOk { ClientProperties = properties, Response = response }, ct);
            if (parityCase.Stage == ParityStage.Login) return await ObserveAsync(client, ct);

            ConnectionTune tune = await client.ExpectMethodAsync<ConnectionTune>(ct);
            int frameMax = (int)(tune.FrameMax == 0 ? 131072 : tune.FrameMax);
            await client.SendMethodAsync(0, new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = (uint)frameMax, Heartbeat = 0 }, ct);
            await client.SendMethodAsync(0, new ConnectionOpen { VirtualHost = "/" }, ct);
            await client.ExpectMethodAsync<ConnectionOpenOk>(ct);
            await client.SendMethodAsync(1, new ChannelOpen(), ct);
            await client.ExpectMethodAsync<ChannelOpenOk>(ct);

            await client.SendAsync(parityCase.Bytes(frameMax), ct);
            return await ObserveAsync(client, ct);
        }
        catch (UnexpectedMethodException e) when (e.Method is ConnectionClose close)
        {
            return new ParityAnswer(ParityAnswerKind.ConnectionClose, close.ReplyCode, close.FailingClassId, close.FailingMethodId,
                $"during the handshake: {close.ReplyText}");
        }
    }

    /// <summary>Reads what the server does next: a close method, its protocol header, a socket close, or nothing.</summary>
    private static async Task<ParityAnswer> ObserveAsync(RawAmqpClient client, CancellationToken cancellationToken)
    {
        using var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        wait.CancelAfter(AnswerWait);
        try
        {
            while (await client.ReadAsync(wait.Token) is { } item)
            {
                if (item.IsProtocolHeader)
                {
                    string header = $"AMQP {item.Payload[4]}-{item.Payload[5]}-{item.Payload[6]}-{item.Payload[7]}";
                    bool closed = await client.ReadAsync(wait.Token) is null;
                    return new ParityAnswer(closed ? ParityAnswerKind.ProtocolHeaderThenClose : ParityAnswerKind.NoAnswer, Detail: header);
                }
                if (item.Type != FrameType.Method) continue;
                switch (MethodCodec.Decode(item.Payload))
                {
                    case ConnectionClose close:
                        return new ParityAnswer(ParityAnswerKind.ConnectionClose, close.ReplyCode, close.FailingClassId, close.FailingMethodId, close.ReplyText);
                    case ChannelClose close:
                        return new ParityAnswer(ParityAnswerKind.ChannelClose, close.ReplyCode, close.FailingClassId, close.FailingMethodId, close.ReplyText);
                }
            }
            return new ParityAnswer(ParityAnswerKind.SocketClosed);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return new ParityAnswer(ParityAnswerKind.NoAnswer, Detail: $"nothing within {AnswerWait.TotalSeconds} s");
        }
    }
}
