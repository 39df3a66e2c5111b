// Method records of the AMQP 0-9-1 "connection" class (id 10), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary>The server's greeting after the protocol header: version, server properties, offered SASL mechanisms and
/// locales.</summary>
[AmqpMethod(10, 10, "connection.start")]
public sealed partial record ConnectionStart : AmqpMethod
{
    /// <summary>Protocol major version (0). Wire type: octet.</summary>
    public byte VersionMajor { get; init; }

    /// <summary>Protocol minor version (9). Wire type: octet.</summary>
    public byte VersionMinor { get; init; } = 9;

    /// <summary>Properties describing the server (product, version, capabilities, ...). Wire type: table.</summary>
    public FieldTable ServerProperties { get; init; } = FieldTable.Empty;

    /// <summary>Space-separated SASL mechanisms the server offers. Wire type: longstr.</summary>
    [LongString]
    public string Mechanisms { get; init; } = "PLAIN";

    /// <summary>Space-separated message locales the server offers. Wire type: longstr.</summary>
    [LongString]
    public string Locales { get; init; } = "en_US";
}

/// <summary>The client's reply to connection.start: client properties, chosen mechanism, SASL response and
/// locale.</summary>
[AmqpMethod(10, 11, "connection.start-ok")]
public sealed partial record ConnectionStartOk : AmqpMethod
{
    /// <summary>Properties describing the client (product, version, capabilities, ...). Wire type: table.</summary>
    public FieldTable ClientProperties { get; init; } = FieldTable.Empty;

    /// <summary>The SASL mechanism the client chose. Wire type: shortstr.</summary>
    public string Mechanism { get; init; } = "PLAIN";

    /// <summary>The SASL response, as raw bytes (for PLAIN: \0user\0password). Wire type: longstr (raw
    /// bytes).</summary>
    public ReadOnlyMemory<byte> Response { get; init; }

    /// <summary>The message locale the client chose. Wire type: shortstr.</summary>
    public string Locale { get; init; } = "en_US";
}

/// <summary>A further SASL challenge from the server.</summary>
[AmqpMethod(10, 20, "connection.secure")]
public sealed partial record ConnectionSecure : AmqpMethod
{
    /// <summary>The SASL challenge, as raw bytes. Wire type: longstr (raw bytes).</summary>
    public ReadOnlyMemory<byte> Challenge { get; init; }
}

/// <summary>The client's response to a SASL challenge.</summary>
[AmqpMethod(10, 21, "connection.secure-ok")]
public sealed partial record ConnectionSecureOk : AmqpMethod
{
    /// <summary>The SASL response, as raw bytes (for PLAIN: \0user\0password). Wire type: longstr (raw
    /// bytes).</summary>
    public ReadOnlyMemory<byte> Response { get; init; }
}

/// <summary>The server's proposed channel-max, frame-max and heartbeat.</summary>
[AmqpMethod(10, 30, "connection.tune")]
public sealed partial record ConnectionTune : TuneMethod;

/// <summary>The client's negotiated channel-max, frame-max and heartbeat.</summary>
[AmqpMethod(10, 31, "connection.tune-ok")]
public sealed partial record ConnectionTuneOk : TuneMethod;

/// <summary>Opens the connection to a virtual host.</summary>
[AmqpMethod(10, 40, "connection.open")]
public sealed partial record ConnectionOpen : AmqpMethod
{
    /// <summary>The virtual host to open. Wire type: shortstr.</summary>
    public string VirtualHost { get; init; } = "/";

    /// <summary>Reserved (was capabilities); empty. Wire type: shortstr.</summary>
    public string Capabilities { get; init; } = "";

    /// <summary>Reserved (was insist); false. Wire type: bit.</summary>
    public bool Insist { get; init; }
}

/// <summary>Confirms connection.open.</summary>
[AmqpMethod(10, 41, "connection.open-ok")]
public sealed partial record ConnectionOpenOk : AmqpMethod
{
    /// <summary>Reserved (was known-hosts); empty. Wire type: shortstr.</summary>
    public string KnownHosts { get; init; } = "";
}

/// <summary>Closes the connection, naming the reply code and the method that failed (if any).</summary>
[AmqpMethod(10, 50, "connection.close")]
public sealed partial record ConnectionClose : CloseMethod;

/// <summary>Confirms connection.close.</summary>
[AmqpMethod(10, 51, "connection.close-ok")]
public sealed partial record ConnectionCloseOk : AmqpMethod;

/// <summary>RabbitMQ extension: the server blocks publishing on this connection (resource alarm).</summary>
[AmqpMethod(10, 60, "connection.blocked")]
public sealed partial record ConnectionBlocked : AmqpMethod
{
    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string Reason { get; init; } = "";
}

/// <summary>RabbitMQ extension: the server lifts a connection.blocked.</summary>
[AmqpMethod(10, 61, "connection.unblocked")]
public sealed partial record ConnectionUnblocked : AmqpMethod;

/// <summary>RabbitMQ extension: the client replaces its credentials (e.g. an expiring OAuth token).</summary>
[AmqpMethod(10, 70, "connection.update-secret")]
public sealed partial record ConnectionUpdateSecret : AmqpMethod
{
    /// <summary>The new secret (e.g. a token), as raw bytes. Wire type: longstr (raw bytes).</summary>
    public ReadOnlyMemory<byte> NewSecret { get; init; }

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string Reason { get; init; } = "";
}

/// <summary>RabbitMQ extension: confirms connection.update-secret.</summary>
[AmqpMethod(10, 71, "connection.update-secret-ok")]
public sealed partial record ConnectionUpdateSecretOk : AmqpMethod;
