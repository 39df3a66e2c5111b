namespace AmqpConformance.Toxiproxy;

/// <summary>An error of Toxiproxy's HTTP API: the HTTP status and the message, which the API sends as
/// <c>{"error": message, "status": status}</c>. Thrown by the embedded server's operations and by
/// <see cref="ToxiproxyClient"/> for any non-success answer.</summary>
public sealed class ToxiproxyApiException : Exception
{
    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException(int status, string message) : base(message) { Status = status; }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException() : this(500, "Toxiproxy API error") { }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException(string message) : this(500, message) { }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException(string message, Exception innerException) : base(message, innerException) { Status = 500; }

    /// <summary>The HTTP status: 400 bad request, 404 not found, 409 already exists, 500 otherwise.</summary>
    public int Status { get; }

    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ProxyNotFound() => new(404, "proxy not found");
    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ToxicNotFound() => new(404, "toxic not found");
    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ProxyExists() => new(409, "proxy already exists");
    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ToxicExists() => new(409, "toxic already exists");
    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException BadRequest(string detail) => new(400, "bad request body: " + detail);
    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException MissingField(string field) => new(400, "missing required field: " + field);
}
