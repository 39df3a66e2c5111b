namespace AmqpConformance.Harness.Pooling;

/// <summary>An array of a <see cref="TrackingArrayPool"/> that is rented out right now.</summary>
/// <param name="ArrayId">The pool's id for the array (from 1, in order of creation).</param>
/// <param name="Size">The array's length.</param>
/// <param name="RequestedSize">The minimum length the renter asked for.</param>
/// <param name="RentStack">Where it was rented, when stack capture is on; otherwise null.</param>
public sealed record OutstandingRental(long ArrayId, int Size, int RequestedSize, string? RentStack);
