namespace AmqpConformance.Toxiproxy;

/// <summary>The embedded Toxiproxy API could not listen where it was asked to: the address is not a loopback
/// address, does not parse, or cannot be bound (taken port, address not available). <see cref="Address"/> is the
/// address as given; the inner exception, when there is one, is the server's own error.</summary>
/// <remarks>An <see cref="IOException"/>, like the error of a listener that fails to bind, so callers that already
/// handle those need nothing new.</remarks>
public sealed class ToxiproxyBindException : IOException
{
    /// <summary>Creates the exception.</summary>
    public ToxiproxyBindException(string address, string reason, Exception? innerException = null)
        : base($"The embedded Toxiproxy API cannot listen on {address}: {reason}", innerException)
    {
        Address = address;
    }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyBindException()
        : this("(unknown)", "bind failed") { }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyBindException(string message)
        : base(message)
    {
        Address = "(unknown)";
    }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyBindException(string message, Exception innerException)
        : base(message, innerException)
    {
        Address = "(unknown)";
    }

    /// <summary>The address the API was asked to listen on, as given.</summary>
    public string Address { get; }
}
