namespace AmqpConformance.Harness.Recording;

/// <summary>What a <see cref="FrameLog"/> keeps.</summary>
public sealed record FrameLogOptions
{
    /// <summary>Keep whole body payloads (default off: body frames keep only their digest).</summary>
    public bool CaptureBodies { get; init; }

    /// <summary>Record frames the broker sends too (default on).</summary>
    public bool RecordSent { get; init; } = true;

    /// <summary>Defaults: digests only, both directions.</summary>
    public static FrameLogOptions Default { get; } = new();
}
