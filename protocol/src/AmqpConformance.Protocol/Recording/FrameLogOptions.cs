namespace AmqpConformance.Protocol.Recording;

/// <summary>What a <see cref="FrameLog"/> keeps.</summary>
public sealed record FrameLogOptions
{
    /// <summary>Keep whole body payloads (default off: body frames keep only their digest).</summary>
    public bool CaptureBodies { get; init; }

    /// <summary>Record frames the broker sends too (default on).</summary>
    public bool RecordSent { get; init; } = true;

    /// <summary>Bound on the frames a <see cref="FrameLog"/> holds in memory; null (the default) holds every frame.
    /// When set, the log keeps at least the newest this-many frames (and fewer than twice as many: the oldest are
    /// dropped in batches). Dropped frames keep their sequence numbers and still reach subscribers (live export), so a
    /// long run streamed to JSON Lines loses nothing while its memory stays flat; <see cref="FrameLog.Snapshot"/> and
    /// exports taken from it then start at <see cref="FrameLog.DroppedFrames"/>, not 0. Must be positive.</summary>
    public int? MaxRetainedFrames
    {
        get;
        init =>
            field = value is null or > 0
                ? value
                : throw new ArgumentOutOfRangeException(
                    nameof(MaxRetainedFrames),
                    value,
                    "MaxRetainedFrames must be positive (or null to keep every frame)."
                );
    }

    /// <summary>The clock frame timestamps and <see cref="FrameLog.Elapsed"/> are read from (default
    /// <see cref="TimeProvider.System"/>). Only its timestamps are used (<see cref="TimeProvider.GetTimestamp"/>), so a
    /// provider that moves them forward on demand lets a test skip a wait without waiting it.</summary>
    public TimeProvider Clock { get; init; } = TimeProvider.System;

    /// <summary>Defaults: digests only, both directions, the system clock.</summary>
    public static FrameLogOptions Default { get; } = new();
}
