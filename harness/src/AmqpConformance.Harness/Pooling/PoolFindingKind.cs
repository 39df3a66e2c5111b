namespace AmqpConformance.Harness.Pooling;

/// <summary>What a <see cref="TrackingArrayPool"/> found wrong with how its arrays were used.</summary>
public enum PoolFindingKind
{
    /// <summary>An array was rented and never returned (reported by <see cref="TrackingArrayPool.Verify"/>).</summary>
    Leak,

    /// <summary>An array was returned while it was not rented out (it had already been returned).</summary>
    DoubleReturn,

    /// <summary>An array this pool never rented out was returned to it.</summary>
    ForeignReturn,

    /// <summary>An array was written to after it was returned (its poison pattern was overwritten).</summary>
    WriteAfterReturn,
}
