using System.Buffers;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Properties.Running;

/// <summary>The commands the runner hands to writers, built by <see cref="CommandBuilder"/>: basic.publish on the
/// default exchange, the routing key naming the call (<see cref="CallCorrelation"/>), a headers table padded to the
/// size the scenario asks for; and, for a call without content, basic.cancel (nowait) whose consumer tag names the
/// call.</summary>
public static class CallCommandBuilder
{
    private const string PadHeader = "x-pad";
    private static readonly int HeaderOverhead =
        new ContentHeader(0, PropertiesWith(0, 0)).EncodedLength() + AmqpConstants.FrameOverhead;

    /// <summary>The bytes of a publish's method and content header frames with no headers table, for a call numbered 10
    /// to 99: the rest of frame_max is what its body can take before the command no longer fits one frame_max's worth
    /// (the generator aims bodies at that edge; a call of another number or with headers lands a few bytes to either
    /// side).</summary>
    public static int FramesLengthWithoutHeaders { get; } = FramesLengthOf(callId: 10);

    private static int FramesLengthOf(int callId)
    {
        var command = Build(ArrayPool<byte>.Shared, 4096, 1, callId, 0, ReadOnlyMemory<byte>.Empty);
        int length = command.FramesLength;
        command.Release(ArrayPool<byte>.Shared);
        return length;
    }

    /// <summary>The largest <see cref="Scenarios.CallStep.HeaderBytes"/> whose content header frame still fits
    /// <paramref name="frameMax"/> (for frame_max 0, a generous 16 KiB).</summary>
    public static int MaxHeaderBytes(int frameMax) => frameMax == 0 ? 16 * 1024 : frameMax - HeaderOverhead;

    /// <summary>Content properties with a headers table of about <paramref name="headerBytes"/> bytes, and call
    /// <paramref name="callId"/>'s message-id (<see cref="CallCorrelation.MessageIdFor"/>).</summary>
    public static BasicProperties PropertiesWith(int headerBytes, int callId) =>
        new()
        {
            ContentType = "application/octet-stream",
            DeliveryMode = 2,
            MessageId = CallCorrelation.MessageIdFor(callId),
            Headers = new FieldTable([new(PadHeader, FieldValue.LongString(new string('h', headerBytes)))]),
        };

    /// <summary>Content properties with only call <paramref name="callId"/>'s message-id: what a publish without a
    /// headers table carries, the same shape for every call.</summary>
    public static BasicProperties PropertiesOf(int callId) =>
        new() { MessageId = CallCorrelation.MessageIdFor(callId) };

    /// <summary>Builds call <paramref name="callId"/>'s command. Ownership of the rented frames and of
    /// <paramref name="bodyOwner"/> passes to whoever gets the command (the writer).</summary>
    /// <exception cref="ArgumentException">The content header frame would not fit
    /// <paramref name="frameMax"/>.</exception>
    public static OutgoingCommand Build(
        ArrayPool<byte> pool,
        int frameMax,
        ushort channel,
        int callId,
        int headerBytes,
        ReadOnlyMemory<byte> body,
        IDisposable? bodyOwner = null
    ) =>
        CommandBuilder.BuildPublish(
            pool,
            frameMax,
            channel,
            "",
            CallCorrelation.RoutingKeyFor(callId),
            mandatory: false,
            headerBytes > 0 ? PropertiesWith(headerBytes, callId) : PropertiesOf(callId),
            body,
            bodyOwner
        );

    /// <summary>Builds call <paramref name="callId"/>'s command without content: one method frame, basic.cancel with
    /// nowait set and the call's consumer tag, which no consumer has, so a broker ignores it and sends nothing back.
    /// Ownership of the rented frame passes to the writer.</summary>
    public static OutgoingCommand BuildWithoutContent(ArrayPool<byte> pool, int frameMax, ushort channel, int callId) =>
        CommandBuilder.Build(
            pool,
            frameMax,
            channel,
            new BasicCancel { ConsumerTag = CallCorrelation.ConsumerTagFor(callId), NoWait = true }
        );

    /// <summary>The command of a heartbeat call: one heartbeat frame (type 8, channel 0, an empty payload, frame end
    /// 0xCE), 8 bytes in a rental from <paramref name="pool"/>, without content, as a client's heartbeat timer hands its
    /// writer. It names no call. Ownership of the rented frame passes to the writer.</summary>
    public static OutgoingCommand BuildHeartbeat(ArrayPool<byte> pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        byte[] frame = pool.Rent(AmqpConstants.FrameOverhead);
        FrameFormat.WriteHeader(frame, FrameType.Heartbeat, 0, 0);
        frame[AmqpConstants.FrameHeaderSize] = AmqpConstants.FrameEnd;
        return new OutgoingCommand(0, frame, AmqpConstants.FrameOverhead, hasContent: false);
    }

    /// <summary>The command of a connection-level call without content: connection.update-secret on channel 0 (the
    /// harness's own credentials again, so a broker that checks them accepts it), naming the call in its
    /// reason.</summary>
    public static OutgoingCommand BuildConnectionLevel(ArrayPool<byte> pool, int frameMax, int callId) =>
        CommandBuilder.Build(
            pool,
            frameMax,
            0,
            new ConnectionUpdateSecret
            {
                NewSecret = "guest"u8.ToArray(),
                Reason = CallCorrelation.UpdateSecretReasonFor(callId),
            }
        );
}
