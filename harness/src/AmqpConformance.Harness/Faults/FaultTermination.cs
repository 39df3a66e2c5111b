namespace AmqpConformance.Harness.Faults;

/// <summary>How a fault ended a connection.</summary>
/// <param name="IsReset">True for a reset (RST: both sides fail, in-flight data lost); false for an
/// orderly close (the bytes delivered so far stay delivered, then end of stream).</param>
/// <param name="Direction">The direction whose fault ended it.</param>
/// <param name="Reason">Which fault and why, for messages and reports.</param>
public sealed record FaultTermination(bool IsReset, FaultDirection Direction, string Reason)
{
    /// <summary>The exception the sides of the connection see: <see cref="TransportResetException"/> or
    /// <see cref="TransportClosedException"/>.</summary>
    public IOException ToException() =>
        IsReset
            ? new TransportResetException($"Connection reset by injected fault: {Reason} ({Direction}).")
            : new TransportClosedException($"Connection closed by injected fault: {Reason} ({Direction}).");
}
