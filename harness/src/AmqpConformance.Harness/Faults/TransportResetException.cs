namespace AmqpConformance.Harness.Faults;

/// <summary>The connection was reset by a fault (the in-process form of ECONNRESET). Writers see it from
/// <see cref="System.IO.Pipelines.PipeWriter.FlushAsync"/>; readers from ReadAsync.</summary>
public sealed class TransportResetException : IOException
{
    /// <summary>Creates the exception.</summary>
    public TransportResetException(string message)
        : base(message) { }

    /// <summary>Creates the exception.</summary>
    public TransportResetException()
        : this("Connection reset by peer (injected fault).") { }

    /// <summary>Creates the exception.</summary>
    public TransportResetException(string message, Exception innerException)
        : base(message, innerException) { }
}
