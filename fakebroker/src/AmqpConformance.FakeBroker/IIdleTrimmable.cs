namespace AmqpConformance.FakeBroker;

/// <summary>A pool that lets go of what it keeps once it sat unused for a while, asked after every full collection
/// (<see cref="Gen2IdleTrimmer"/>).</summary>
internal interface IIdleTrimmable
{
    /// <summary>Drops every free item if the pool has been unused long enough; returns whether it did. Thread-safe.</summary>
    bool TrimIfIdle();
}
