using System.Buffers;

namespace AmqpConformance.Harness.Writers;

/// <summary>
/// One AMQP command on its way to the wire: its method frame and (for content-bearing methods) its
/// content header frame, already serialized as complete frames into <see cref="RentedFrames"/>, a
/// buffer rented from <see cref="WriterContext.Pool"/>; and its body, as the caller's memory, not copied.
/// </summary>
/// <remarks>
/// <para>Ownership. Handing a command to <see cref="IFrameWriter.WriteAsync"/> hands over the rented
/// frames buffer and the <see cref="BodyOwner"/>, whether the call succeeds, fails or is cancelled:
/// the writer releases both exactly once (<see cref="Release"/>), after the bytes are out or when it
/// gives up on the command. The <see cref="Body"/> memory itself stays the caller's: the writer may read it
/// only until the call completes, unless a <see cref="BodyOwner"/> came with it, in which case the
/// memory stays valid until the writer disposes the owner.</para>
/// <para>This is a struct so that building one allocates nothing; a copy shares the same buffers, so
/// release only one of them. The <c>TrackingArrayPool</c> reports a second release as a double return.</para>
/// </remarks>
public readonly struct OutgoingCommand
{
    /// <summary>Creates a command. See the type's remarks for who owns what.</summary>
    /// <param name="channel">The channel every frame of the command is sent on.</param>
    /// <param name="rentedFrames">A pooled buffer whose first <paramref name="framesLength"/> bytes are
    /// the method frame and, if <paramref name="hasContent"/>, the content header frame.</param>
    /// <param name="framesLength">How many bytes of <paramref name="rentedFrames"/> are frames.</param>
    /// <param name="hasContent">Whether a content header (and so possibly a body) follows the method.</param>
    /// <param name="body">The body; must be empty when <paramref name="hasContent"/> is false.</param>
    /// <param name="bodyOwner">Optional owner of <paramref name="body"/>'s memory, disposed by the writer
    /// exactly once after the body's last byte is in the output.</param>
    public OutgoingCommand(
        ushort channel,
        byte[] rentedFrames,
        int framesLength,
        bool hasContent,
        ReadOnlyMemory<byte> body = default,
        IDisposable? bodyOwner = null
    )
    {
        ArgumentNullException.ThrowIfNull(rentedFrames);
        ArgumentOutOfRangeException.ThrowIfNegative(framesLength);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(framesLength, rentedFrames.Length);
        if (!hasContent && !body.IsEmpty)
            throw new ArgumentException("A command without content cannot carry a body.", nameof(body));
        Channel = channel;
        RentedFrames = rentedFrames;
        FramesLength = framesLength;
        HasContent = hasContent;
        Body = body;
        BodyOwner = bodyOwner;
    }

    /// <summary>The channel all of this command's frames go on.</summary>
    public ushort Channel { get; }

    /// <summary>The pooled buffer holding the serialized method (and header) frames.</summary>
    public byte[] RentedFrames { get; }

    /// <summary>Length of the serialized frames at the start of <see cref="RentedFrames"/>.</summary>
    public int FramesLength { get; }

    /// <summary>The serialized method (and header) frames.</summary>
    public ReadOnlyMemory<byte> Frames => RentedFrames.AsMemory(0, FramesLength);

    /// <summary>Whether a content header is among <see cref="Frames"/> (basic.publish and friends).</summary>
    public bool HasContent { get; }

    /// <summary>The body, as the caller's memory; written as body frames of at most frame_max - 8 bytes.</summary>
    public ReadOnlyMemory<byte> Body { get; }

    /// <summary>The owner of <see cref="Body"/>'s memory, if the caller handed one over (PR #1913 style).</summary>
    public IDisposable? BodyOwner { get; }

    /// <summary>Bytes this command occupies on the wire under <paramref name="frameMax"/>.</summary>
    public long WireLength(int frameMax) =>
        FramesLength + Protocol.FrameFormat.BodyFramesWireLength(Body.Length, frameMax);

    /// <summary>Returns <see cref="RentedFrames"/> to <paramref name="pool"/> and disposes <see cref="BodyOwner"/>.
    /// Call exactly once per command; the writer does, never the caller.</summary>
    public void Release(ArrayPool<byte> pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        pool.Return(RentedFrames);
        BodyOwner?.Dispose();
    }
}
