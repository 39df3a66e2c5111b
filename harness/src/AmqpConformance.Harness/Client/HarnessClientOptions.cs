using System.Buffers;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Client;

/// <summary>How a <see cref="HarnessConnection"/> logs in, what it asks for in connection.tune-ok, and which frame
/// writer it publishes through.</summary>
public sealed record HarnessClientOptions
{
    /// <summary>User name for SASL PLAIN (default "guest").</summary>
    public string UserName { get; init; } = "guest";

    /// <summary>Password for SASL PLAIN (default "guest").</summary>
    public string Password { get; init; } = "guest";

    /// <summary>The virtual host to open (default "/").</summary>
    public string VirtualHost { get; init; } = "/";

    /// <summary>The frame_max the client asks for: 0 (default) takes the broker's offer; otherwise the lower of this
    /// and the broker's offer (an unlimited offer takes this). Must be 0 or at least 4096.</summary>
    public int FrameMax { get; init; }

    /// <summary>Heartbeat interval sent in tune-ok, in seconds; 0 (default) turns heartbeats off, which RabbitMQ and
    /// the fake broker honour. When on, the client sends a heartbeat frame through the writer every half
    /// interval.</summary>
    public ushort HeartbeatSeconds { get; init; }

    /// <summary>Makes the frame writer every command after the handshake goes through (default: the background
    /// writer).</summary>
    public FrameWriterFactory WriterFactory { get; init; } = WriterModes.Background;

    /// <summary>The pool command frames (and the writer's buffers) are rented from: inject a
    /// <c>TrackingArrayPool</c> to audit them. Default <see cref="ArrayPool{T}.Shared"/>.</summary>
    public ArrayPool<byte> Pool { get; init; } = ArrayPool<byte>.Shared;

    /// <summary>The writer's queue capacity (<see cref="WriterContext.QueueCapacity"/>; default 128).</summary>
    public int WriterQueueCapacity { get; init; } = 128;

    /// <summary>Upper bound on the handshake and on each channel-level request (open, confirm.select, close). Default
    /// 10 s.</summary>
    public TimeSpan RequestTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>How long <see cref="HarnessConnection.DisposeAsync"/> waits for connection.close-ok and for the reader
    /// to stop. Default 5 s.</summary>
    public TimeSpan CloseTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Client properties "product" value (default "AmqpConformance.Harness").</summary>
    public string ClientProduct { get; init; } = "AmqpConformance.Harness";

    /// <summary>Checks the options; throws <see cref="ArgumentException"/> naming the bad one.</summary>
    public void Validate()
    {
        ArgumentNullException.ThrowIfNull(UserName, nameof(UserName));
        ArgumentNullException.ThrowIfNull(Password, nameof(Password));
        ArgumentNullException.ThrowIfNull(VirtualHost, nameof(VirtualHost));
        ArgumentNullException.ThrowIfNull(WriterFactory, nameof(WriterFactory));
        ArgumentNullException.ThrowIfNull(Pool, nameof(Pool));
        if (FrameMax != 0 && FrameMax < Protocol.AmqpConstants.FrameMinSize)
            throw new ArgumentException(
                $"FrameMax {FrameMax} is below the AMQP minimum 4096 (use 0 to take the broker's offer).",
                nameof(FrameMax)
            );
        if (FrameMax < 0)
            throw new ArgumentException("FrameMax cannot be negative.", nameof(FrameMax));
        if (WriterQueueCapacity < 1)
            throw new ArgumentException("WriterQueueCapacity must be at least 1.", nameof(WriterQueueCapacity));
        if (RequestTimeout <= TimeSpan.Zero)
            throw new ArgumentException("RequestTimeout must be positive.", nameof(RequestTimeout));
        if (CloseTimeout < TimeSpan.Zero)
            throw new ArgumentException("CloseTimeout cannot be negative.", nameof(CloseTimeout));
    }
}
