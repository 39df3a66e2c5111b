namespace AmqpConformance.Toxiproxy;

/// <summary>An error of Toxiproxy's HTTP API: the HTTP status and the message, which the API sends as
/// <c>{"error": message, "status": status}</c>. Thrown by the embedded server's operations and by
/// <see cref="ToxiproxyClient"/> for any non-success answer.</summary>
public sealed class ToxiproxyApiException : Exception
{
    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException(int status, string message)
        : base(message)
    {
        Status = status;
    }

    /// <summary>Creates the exception for a request field: <paramref name="field"/> is what the error body
    /// names.</summary>
    public ToxiproxyApiException(int status, string message, string? field)
        : base(message)
    {
        Status = status;
        Field = field;
    }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException()
        : this(500, "Toxiproxy API error") { }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException(string message)
        : this(500, message) { }

    /// <summary>Creates the exception.</summary>
    public ToxiproxyApiException(string message, Exception innerException)
        : base(message, innerException)
    {
        Status = 500;
    }

    /// <summary>The HTTP status: 400 bad request, 404 not found, 409 already exists (or an address in use), 500
    /// otherwise.</summary>
    public int Status { get; }

    /// <summary>The request field the error is about ("name", "listen", "attributes.latency", "body", ...), when there
    /// is one. The embedded API sends it as <c>"field"</c> next to Toxiproxy's <c>{"error","status"}</c>.</summary>
    public string? Field { get; }

    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ProxyNotFound() => new(404, "proxy not found", "proxy");

    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ToxicNotFound() => new(404, "toxic not found", "toxic");

    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ProxyExists() => new(409, "proxy already exists", "name");

    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException ToxicExists() => new(409, "toxic already exists", "name");

    /// <summary>Toxiproxy's error for this case; <paramref name="field"/> is the JSON path at fault, or
    /// "body".</summary>
    public static ToxiproxyApiException BadRequest(string detail, string field = "body") =>
        new(400, "bad request body: " + detail, field);

    /// <summary>Toxiproxy's error for this case.</summary>
    public static ToxiproxyApiException MissingField(string field) =>
        new(400, "missing required field: " + field, field);

    /// <summary>400 for JSON that does not fit the expected shape; the field is the JSON path at fault without its
    /// leading "$." (such as "attributes.latency"), after <paramref name="prefix"/>, or
    /// <paramref name="fallback"/>.</summary>
    public static ToxiproxyApiException FromJson(System.Text.Json.JsonException e, string fallback, string prefix = "")
    {
        ArgumentNullException.ThrowIfNull(e);
        string? path =
            e.Path is null or "$" ? null
            : e.Path.StartsWith("$.", StringComparison.Ordinal) ? e.Path[2..]
            : e.Path.TrimStart('$');
        return BadRequest(e.Message, path is { Length: > 0 } ? prefix + path : fallback);
    }

    /// <summary>400 for a field whose value is out of range or malformed.</summary>
    public static ToxiproxyApiException Invalid(string field, string message) => new(400, message, field);

    /// <summary>409 for an address that cannot be bound because something else holds it.</summary>
    public static ToxiproxyApiException AddressInUse(string field, string message) => new(409, message, field);
}
