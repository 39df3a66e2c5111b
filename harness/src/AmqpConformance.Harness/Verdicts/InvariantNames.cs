namespace AmqpConformance.Harness.Verdicts;

/// <summary>The stable names of the frame-writer invariants, as used in reports, trait values and artifact
/// folders.</summary>
public static class InvariantNames
{
    /// <summary>Every frame is type|channel|size|payload|0xCE with the size it claims; none exceeds
    /// frame_max.</summary>
    public const string WireFormat = "wire-format";

    /// <summary>basic.publish, then a class-60 header declaring the body length, then body frames of frame_max - 8
    /// summing to it.</summary>
    public const string CommandShape = "command-shape";

    /// <summary>Each command's frames are contiguous on the wire (writer level) and per channel (protocol
    /// level).</summary>
    public const string NoInterleaving = "no-interleaving";

    /// <summary>Non-overlapping calls reach the wire in call order; each publisher's order is kept; confirms map to
    /// sequence numbers.</summary>
    public const string Order = "order";

    /// <summary>The wire carries the caller's bytes as they were at call time; the writer never reads a body after its
    /// call completed.</summary>
    public const string Bodies = "bodies";

    /// <summary>Every rental comes back exactly once, nothing foreign, nothing written after return; body owners
    /// disposed once, after their bytes.</summary>
    public const string Pools = "pools";

    /// <summary>After a write fault nothing more goes out, pending and later calls fail promptly and clearly, nothing
    /// hangs.</summary>
    public const string Faults = "faults";

    /// <summary>Cancellation is all or nothing: no partial frame, no ghost publish.</summary>
    public const string Cancellation = "cancellation";

    /// <summary>With a stalled output, calls accepted without being flushed and memory held stay within the declared
    /// queue capacity.</summary>
    public const string Backpressure = "backpressure";

    /// <summary>A call that completed successfully has its bytes flushed without any further action by the
    /// caller.</summary>
    public const string Visibility = "visibility";

    /// <summary>Disposal completes within its bound; pending calls complete; calls after disposal fail; nothing is
    /// written after it.</summary>
    public const string Lifecycle = "lifecycle";

    /// <summary>The fake broker, validating like RabbitMQ (strict profile), accepts the stream.</summary>
    public const string Broker = "broker";

    /// <summary>All invariants, in report order.</summary>
    public static IReadOnlyList<string> All { get; } =
    [
        WireFormat,
        CommandShape,
        NoInterleaving,
        Order,
        Bodies,
        Pools,
        Faults,
        Cancellation,
        Backpressure,
        Visibility,
        Lifecycle,
        Broker,
    ];
}
