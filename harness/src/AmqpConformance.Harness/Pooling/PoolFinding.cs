namespace AmqpConformance.Harness.Pooling;

/// <summary>One misuse of a <see cref="TrackingArrayPool"/>'s arrays.</summary>
/// <param name="Kind">What went wrong.</param>
/// <param name="ArrayId">The pool's id for the array (from 1, in order of creation); 0 for a foreign array.</param>
/// <param name="Size">The array's length.</param>
/// <param name="RentStack">Where the array was last rented, when
/// <see cref="TrackingArrayPoolOptions.CaptureStackTraces"/> is on; otherwise null.</param>
/// <param name="Message">A sentence a person can act on.</param>
public sealed record PoolFinding(PoolFindingKind Kind, long ArrayId, int Size, string? RentStack, string Message)
{
    /// <inheritdoc />
    public override string ToString() =>
        RentStack is null
            ? $"{Kind}: {Message}"
            : $"{Kind}: {Message}{Environment.NewLine}  rented at:{Environment.NewLine}{RentStack}";
}
