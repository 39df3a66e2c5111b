using System.Text;
using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>
/// One parity case: how far the client gets through a normal handshake, then which bytes it sends. The same case runs
/// against RabbitMQ and the fake broker (see <see cref="ParityProbe"/>).
/// </summary>
/// <param name="Name">The case's name in test results.</param>
/// <param name="Stage">Where the bad bytes go: instead of the protocol header, at login, or after channel 1 is
/// open.</param>
/// <param name="Bytes">The bytes sent at that stage, given the negotiated frame_max.</param>
/// <param name="Password">The password sent in connection.start-ok.</param>
/// <param name="AuthenticationFailureClose">Whether start-ok's client properties announce the capability of that
/// name.</param>
internal sealed record ParityCase(
    string Name,
    ParityStage Stage,
    Func<int, byte[]> Bytes,
    string Password = "guest",
    bool AuthenticationFailureClose = false
)
{
    public override string ToString() => Name;

    private static readonly byte[] Qos = FrameBytes.Method(1, new BasicQos { PrefetchCount = 10 });

    /// <summary>Every case, by name.</summary>
    public static IReadOnlyDictionary<string, ParityCase> All { get; } =
        new ParityCase[]
        {
            new("bad-frame-end", ParityStage.ChannelOpen, _ => MalformedFrames.WithFrameEnd(Qos, 0x00)),
            // RabbitMQ 3.x accepts payloads up to frame_max (a "fudge" of 8 bytes over the limit), so a frame one byte
            // over frame_max is read and then fails to decode; one whose payload exceeds frame_max is refused from its
            // header.
            new("oversize-frame-within-rabbitmq-fudge", ParityStage.ChannelOpen, frameMax =>
                FrameBytes.Frame(
                    FrameType.Method,
                    1,
                    FrameBytes.Concat([0, 60, 0, 40], new byte[frameMax - AmqpConstants.FrameOverhead + 1 - 4])
                )
            ),
            new("oversize-frame", ParityStage.ChannelOpen, frameMax =>
                FrameBytes.Frame(FrameType.Method, 1, FrameBytes.Concat([0, 60, 0, 40], new byte[frameMax + 1 - 4]))
            ),
            new("unknown-frame-type", ParityStage.ChannelOpen, _ => MalformedFrames.UnknownType(9, 1, [1, 2, 3])),
            new(
                "undecodable-method-arguments",
                ParityStage.ChannelOpen,
                _ =>
                    // queue.declare whose queue-name short string claims 200 bytes but the payload ends after 3.
                    FrameBytes.Frame(FrameType.Method, 1, [0, 50, 0, 10, 0, 0, 200, (byte)'a', (byte)'b', (byte)'c'])
            ),
            new("body-without-header", ParityStage.ChannelOpen, _ => FrameBytes.Body(1, [1, 2, 3, 4])),
            new("header-without-publish", ParityStage.ChannelOpen, _ => FrameBytes.Header(1, 4)),
            new("method-while-expecting-header", ParityStage.ChannelOpen, _ =>
                FrameBytes.Concat(FrameBytes.Method(1, new BasicPublish { RoutingKey = "nowhere" }), Qos)
            ),
            new("method-while-expecting-body", ParityStage.ChannelOpen, _ =>
                FrameBytes.Concat(
                    FrameBytes.Method(1, new BasicPublish { RoutingKey = "nowhere" }),
                    FrameBytes.Header(1, 4),
                    Qos
                )
            ),
            new("heartbeat-on-channel-1", ParityStage.ChannelOpen, _ => FrameBytes.Heartbeat(1)),
            new("frame-on-unopened-channel", ParityStage.ChannelOpen, _ =>
                FrameBytes.Method(5, new BasicQos { PrefetchCount = 10 })
            ),
            new("second-channel-open", ParityStage.ChannelOpen, _ => FrameBytes.Method(1, new ChannelOpen())),
            new("publish-to-missing-exchange", ParityStage.ChannelOpen, _ =>
                FrameBytes.Concat(
                    FrameBytes.Method(1, new BasicPublish { Exchange = "parity-no-such-exchange", RoutingKey = "x" }),
                    FrameBytes.Header(1, 4),
                    FrameBytes.Body(1, [1, 2, 3, 4])
                )
            ),
            new("protocol-header-wrong-version", ParityStage.ProtocolHeader, _ => [.. "AMQP"u8, 0, 0, 10, 0]),
            new("protocol-header-not-amqp", ParityStage.ProtocolHeader, _ =>
                Encoding.ASCII.GetBytes("GET / HTTP/1.1\r\n\r\n")
            ),
            // A client that announces the authentication_failure_close capability (as current clients do) gets a 403
            // close; one that does not is disconnected without a word (RabbitMQ waits a moment first).
            new(
                "wrong-password",
                ParityStage.Login,
                _ => [],
                Password: "not-the-password",
                AuthenticationFailureClose: true
            ),
            new("wrong-password-without-capability", ParityStage.Login, _ => [], Password: "not-the-password"),
        }.ToDictionary(c => c.Name);

    /// <summary>The case names, for a theory's MemberData.</summary>
    public static TheoryData<string> Names()
    {
        var data = new TheoryData<string>();
        foreach (string name in All.Keys)
            data.Add(name);
        return data;
    }
}
