using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>Runs a <see cref="ParityCase"/> against one server and reduces the server's reaction to a
/// <see cref="ParityAnswer"/>.</summary>
internal static class ParityProbe
{
    /// <summary>How long a server gets to react to the bad bytes before the answer is
    /// <see cref="ParityAnswerKind.NoAnswer"/>.</summary>
    public static TimeSpan AnswerWait { get; } = TimeSpan.FromSeconds(5);

    public static async Task<ParityAnswer> RunAsync(ParityCase parityCase, string host, int port)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        CancellationToken ct = timeout.Token;
        await using AmqpTestClient client = await AmqpTestClient.ConnectAsync(host, port, ct);

        if (parityCase.Stage == ParityStage.ProtocolHeader)
        {
            await client.SendBytesAsync(parityCase.Bytes(0), ct);
            return await ObserveAsync(client, ct);
        }

        var handshake = new TestPeerHandshake
        {
            Password = parityCase.Password,
            AuthenticationFailureClose = parityCase.AuthenticationFailureClose,
        };
        try
        {
            if (parityCase.Stage == ParityStage.Login)
            {
                await client.HandshakeAsync(handshake, HandshakeStep.StartOk, ct);
                return await ObserveAsync(client, ct);
            }
            await client.HandshakeAsync(handshake, HandshakeStep.Open, ct);
            await client.OpenChannelAsync(1, ct);
            uint frameMax = client.TuneOk!.FrameMax;
            await client.SendBytesAsync(parityCase.Bytes((int)(frameMax == 0 ? 131072 : frameMax)), ct);
            return await ObserveAsync(client, ct);
        }
        catch (PeerExpectationException e) when (e.Method is ConnectionClose close)
        {
            return new ParityAnswer(
                ParityAnswerKind.ConnectionClose,
                close.ReplyCode,
                close.FailingClassId,
                close.FailingMethodId,
                $"during the handshake: {close.ReplyText}"
            );
        }
    }

    /// <summary>Reads what the server does next: a close method, its protocol header, a socket close, or
    /// nothing.</summary>
    private static async Task<ParityAnswer> ObserveAsync(AmqpTestClient client, CancellationToken cancellationToken)
    {
        using var wait = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        wait.CancelAfter(AnswerWait);
        try
        {
            while (await client.ReadFrameAsync(wait.Token) is { } item)
            {
                if (item.IsProtocolHeader)
                {
                    string header = $"AMQP {item.Payload[4]}-{item.Payload[5]}-{item.Payload[6]}-{item.Payload[7]}";
                    bool closed = await client.ReadFrameAsync(wait.Token) is null;
                    return new ParityAnswer(
                        closed ? ParityAnswerKind.ProtocolHeaderThenClose : ParityAnswerKind.NoAnswer,
                        Detail: header
                    );
                }
                switch (item.MethodOrNull)
                {
                    case ConnectionClose close:
                        return new ParityAnswer(
                            ParityAnswerKind.ConnectionClose,
                            close.ReplyCode,
                            close.FailingClassId,
                            close.FailingMethodId,
                            close.ReplyText
                        );
                    case ChannelClose close:
                        return new ParityAnswer(
                            ParityAnswerKind.ChannelClose,
                            close.ReplyCode,
                            close.FailingClassId,
                            close.FailingMethodId,
                            close.ReplyText
                        );
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
