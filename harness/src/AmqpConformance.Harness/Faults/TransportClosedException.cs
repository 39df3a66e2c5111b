namespace AmqpConformance.Harness.Faults;

/// <summary>The connection was closed under a writer: by a fault (data limit, black hole timeout or
/// removal) or because the receiving side stopped reading. The in-process form of EPIPE.</summary>
public sealed class TransportClosedException : IOException
{
    /// <summary>Creates the exception.</summary>
    public TransportClosedException(string message)
        : base(message) { }

    /// <summary>Creates the exception.</summary>
    public TransportClosedException()
        : this("The connection was closed (injected fault).") { }

    /// <summary>Creates the exception.</summary>
    public TransportClosedException(string message, Exception innerException)
        : base(message, innerException) { }
}
