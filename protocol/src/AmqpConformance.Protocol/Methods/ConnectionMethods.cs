// Method records of the AMQP 0-9-1 "connection" class (id 10), argument lists as in RabbitMQ's
// amqp-rabbitmq-0.9.1 specification. Kept in one file per class so a reader sees the class at once.
namespace AmqpConformance.Protocol;

/// <summary><c>connection.start</c> (10, 10). The server's greeting after the protocol header: version, server properties, offered SASL mechanisms and locales.</summary>
public sealed record ConnectionStart : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 10 (start).</summary>
    public const ushort MethodIdValue = 10;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.start";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Protocol major version (0). Wire type: octet.</summary>
    public byte VersionMajor { get; init; }

    /// <summary>Protocol minor version (9). Wire type: octet.</summary>
    public byte VersionMinor { get; init; } = 9;

    /// <summary>Properties describing the server (product, version, capabilities, ...). Wire type: table.</summary>
    public FieldTable ServerProperties { get; init; } = FieldTable.Empty;

    /// <summary>Space-separated SASL mechanisms the server offers. Wire type: longstr.</summary>
    public string Mechanisms { get; init; } = "PLAIN";

    /// <summary>Space-separated message locales the server offers. Wire type: longstr.</summary>
    public string Locales { get; init; } = "en_US";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteOctet(VersionMajor);
        writer.WriteOctet(VersionMinor);
        writer.WriteFieldTable(ServerProperties);
        writer.WriteLongString(Mechanisms);
        writer.WriteLongString(Locales);
        writer.Flush();
    }

    internal static ConnectionStart Read(ref AmqpReader reader) => new()
    {
        VersionMajor = reader.ReadOctet("version-major"),
        VersionMinor = reader.ReadOctet("version-minor"),
        ServerProperties = reader.ReadFieldTable("server-properties"),
        Mechanisms = reader.ReadLongString("mechanisms"),
        Locales = reader.ReadLongString("locales"),
    };
}

/// <summary><c>connection.start-ok</c> (10, 11). The client's reply to connection.start: client properties, chosen mechanism, SASL response and locale.</summary>
public sealed record ConnectionStartOk : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 11 (start-ok).</summary>
    public const ushort MethodIdValue = 11;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.start-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Properties describing the client (product, version, capabilities, ...). Wire type: table.</summary>
    public FieldTable ClientProperties { get; init; } = FieldTable.Empty;

    /// <summary>The SASL mechanism the client chose. Wire type: shortstr.</summary>
    public string Mechanism { get; init; } = "PLAIN";

    /// <summary>The SASL response, as raw bytes (for PLAIN: \0user\0password). Wire type: longstr (raw bytes).</summary>
    public ReadOnlyMemory<byte> Response { get; init; }

    /// <summary>The message locale the client chose. Wire type: shortstr.</summary>
    public string Locale { get; init; } = "en_US";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteFieldTable(ClientProperties);
        writer.WriteShortString(Mechanism);
        writer.WriteLongString(Response.Span);
        writer.WriteShortString(Locale);
        writer.Flush();
    }

    internal static ConnectionStartOk Read(ref AmqpReader reader) => new()
    {
        ClientProperties = reader.ReadFieldTable("client-properties"),
        Mechanism = reader.ReadShortString("mechanism"),
        Response = reader.ReadLongStringSpan("response").ToArray(),
        Locale = reader.ReadShortString("locale"),
    };

    /// <summary>Value equality; the binary argument(s) compare by content.</summary>
    public bool Equals(ConnectionStartOk? other) =>
        other is not null
        && base.Equals(other)
        && EqualityComparer<FieldTable>.Default.Equals(ClientProperties, other.ClientProperties)
        && EqualityComparer<string>.Default.Equals(Mechanism, other.Mechanism)
        && Response.Span.SequenceEqual(other.Response.Span)
        && EqualityComparer<string>.Default.Equals(Locale, other.Locale);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(base.GetHashCode(), ClientProperties, Mechanism, Response.Length, Locale);
}

/// <summary><c>connection.secure</c> (10, 20). A further SASL challenge from the server.</summary>
public sealed record ConnectionSecure : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 20 (secure).</summary>
    public const ushort MethodIdValue = 20;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.secure";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>The SASL challenge, as raw bytes. Wire type: longstr (raw bytes).</summary>
    public ReadOnlyMemory<byte> Challenge { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongString(Challenge.Span);
        writer.Flush();
    }

    internal static ConnectionSecure Read(ref AmqpReader reader) => new()
    {
        Challenge = reader.ReadLongStringSpan("challenge").ToArray(),
    };

    /// <summary>Value equality; the binary argument(s) compare by content.</summary>
    public bool Equals(ConnectionSecure? other) =>
        other is not null
        && base.Equals(other)
        && Challenge.Span.SequenceEqual(other.Challenge.Span);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(base.GetHashCode(), Challenge.Length);
}

/// <summary><c>connection.secure-ok</c> (10, 21). The client's response to a SASL challenge.</summary>
public sealed record ConnectionSecureOk : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 21 (secure-ok).</summary>
    public const ushort MethodIdValue = 21;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.secure-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>The SASL response, as raw bytes (for PLAIN: \0user\0password). Wire type: longstr (raw bytes).</summary>
    public ReadOnlyMemory<byte> Response { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongString(Response.Span);
        writer.Flush();
    }

    internal static ConnectionSecureOk Read(ref AmqpReader reader) => new()
    {
        Response = reader.ReadLongStringSpan("response").ToArray(),
    };

    /// <summary>Value equality; the binary argument(s) compare by content.</summary>
    public bool Equals(ConnectionSecureOk? other) =>
        other is not null
        && base.Equals(other)
        && Response.Span.SequenceEqual(other.Response.Span);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(base.GetHashCode(), Response.Length);
}

/// <summary><c>connection.tune</c> (10, 30). The server's proposed channel-max, frame-max and heartbeat.</summary>
public sealed record ConnectionTune : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 30 (tune).</summary>
    public const ushort MethodIdValue = 30;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.tune";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Highest usable channel number (0 = no limit). Wire type: short.</summary>
    public ushort ChannelMax { get; init; }

    /// <summary>Largest frame size in bytes, header and end octet included (0 = no limit). Wire type: long.</summary>
    public uint FrameMax { get; init; }

    /// <summary>Heartbeat interval in seconds (0 = none). Wire type: short.</summary>
    public ushort Heartbeat { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(ChannelMax);
        writer.WriteLong(FrameMax);
        writer.WriteShort(Heartbeat);
        writer.Flush();
    }

    internal static ConnectionTune Read(ref AmqpReader reader) => new()
    {
        ChannelMax = reader.ReadShort("channel-max"),
        FrameMax = reader.ReadLong("frame-max"),
        Heartbeat = reader.ReadShort("heartbeat"),
    };
}

/// <summary><c>connection.tune-ok</c> (10, 31). The client's negotiated channel-max, frame-max and heartbeat.</summary>
public sealed record ConnectionTuneOk : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 31 (tune-ok).</summary>
    public const ushort MethodIdValue = 31;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.tune-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Highest usable channel number (0 = no limit). Wire type: short.</summary>
    public ushort ChannelMax { get; init; }

    /// <summary>Largest frame size in bytes, header and end octet included (0 = no limit). Wire type: long.</summary>
    public uint FrameMax { get; init; }

    /// <summary>Heartbeat interval in seconds (0 = none). Wire type: short.</summary>
    public ushort Heartbeat { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(ChannelMax);
        writer.WriteLong(FrameMax);
        writer.WriteShort(Heartbeat);
        writer.Flush();
    }

    internal static ConnectionTuneOk Read(ref AmqpReader reader) => new()
    {
        ChannelMax = reader.ReadShort("channel-max"),
        FrameMax = reader.ReadLong("frame-max"),
        Heartbeat = reader.ReadShort("heartbeat"),
    };
}

/// <summary><c>connection.open</c> (10, 40). Opens the connection to a virtual host.</summary>
public sealed record ConnectionOpen : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 40 (open).</summary>
    public const ushort MethodIdValue = 40;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.open";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>The virtual host to open. Wire type: shortstr.</summary>
    public string VirtualHost { get; init; } = "/";

    /// <summary>Reserved (was capabilities); empty. Wire type: shortstr.</summary>
    public string Capabilities { get; init; } = "";

    /// <summary>Reserved (was insist); false. Wire type: bit.</summary>
    public bool Insist { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(VirtualHost);
        writer.WriteShortString(Capabilities);
        writer.WriteBit(Insist);
        writer.Flush();
    }

    internal static ConnectionOpen Read(ref AmqpReader reader) => new()
    {
        VirtualHost = reader.ReadShortString("virtual-host"),
        Capabilities = reader.ReadShortString("capabilities"),
        Insist = reader.ReadBit("insist"),
    };
}

/// <summary><c>connection.open-ok</c> (10, 41). Confirms connection.open.</summary>
public sealed record ConnectionOpenOk : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 41 (open-ok).</summary>
    public const ushort MethodIdValue = 41;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.open-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reserved (was known-hosts); empty. Wire type: shortstr.</summary>
    public string KnownHosts { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(KnownHosts);
        writer.Flush();
    }

    internal static ConnectionOpenOk Read(ref AmqpReader reader) => new()
    {
        KnownHosts = reader.ReadShortString("known-hosts"),
    };
}

/// <summary><c>connection.close</c> (10, 50). Closes the connection, naming the reply code and the method that failed (if any).</summary>
public sealed record ConnectionClose : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 50 (close).</summary>
    public const ushort MethodIdValue = 50;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.close";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Reply code (e.g. 200 for a normal close, 404 not found, 406 precondition failed). Wire type: short.</summary>
    public ushort ReplyCode { get; init; }

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string ReplyText { get; init; } = "";

    /// <summary>Class id of the method that caused the close; 0 if none. Wire type: short.</summary>
    public ushort FailingClassId { get; init; }

    /// <summary>Method id of the method that caused the close; 0 if none. Wire type: short.</summary>
    public ushort FailingMethodId { get; init; }

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShort(ReplyCode);
        writer.WriteShortString(ReplyText);
        writer.WriteShort(FailingClassId);
        writer.WriteShort(FailingMethodId);
        writer.Flush();
    }

    internal static ConnectionClose Read(ref AmqpReader reader) => new()
    {
        ReplyCode = reader.ReadShort("reply-code"),
        ReplyText = reader.ReadShortString("reply-text"),
        FailingClassId = reader.ReadShort("class-id"),
        FailingMethodId = reader.ReadShort("method-id"),
    };
}

/// <summary><c>connection.close-ok</c> (10, 51). Confirms connection.close.</summary>
public sealed record ConnectionCloseOk : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 51 (close-ok).</summary>
    public const ushort MethodIdValue = 51;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.close-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ConnectionCloseOk Read(ref AmqpReader reader) => new();
}

/// <summary><c>connection.blocked</c> (10, 60). RabbitMQ extension: the server blocks publishing on this connection (resource alarm).</summary>
public sealed record ConnectionBlocked : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 60 (blocked).</summary>
    public const ushort MethodIdValue = 60;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.blocked";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string Reason { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteShortString(Reason);
        writer.Flush();
    }

    internal static ConnectionBlocked Read(ref AmqpReader reader) => new()
    {
        Reason = reader.ReadShortString("reason"),
    };
}

/// <summary><c>connection.unblocked</c> (10, 61). RabbitMQ extension: the server lifts a connection.blocked.</summary>
public sealed record ConnectionUnblocked : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 61 (unblocked).</summary>
    public const ushort MethodIdValue = 61;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.unblocked";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ConnectionUnblocked Read(ref AmqpReader reader) => new();
}

/// <summary><c>connection.update-secret</c> (10, 70). RabbitMQ extension: the client replaces its credentials (e.g. an expiring OAuth token).</summary>
public sealed record ConnectionUpdateSecret : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 70 (update-secret).</summary>
    public const ushort MethodIdValue = 70;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.update-secret";
    /// <inheritdoc/>
    public override bool HasContent => false;

    /// <summary>The new secret (e.g. a token), as raw bytes. Wire type: longstr (raw bytes).</summary>
    public ReadOnlyMemory<byte> NewSecret { get; init; }

    /// <summary>Human-readable reason. Wire type: shortstr.</summary>
    public string Reason { get; init; } = "";

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.WriteLongString(NewSecret.Span);
        writer.WriteShortString(Reason);
        writer.Flush();
    }

    internal static ConnectionUpdateSecret Read(ref AmqpReader reader) => new()
    {
        NewSecret = reader.ReadLongStringSpan("new-secret").ToArray(),
        Reason = reader.ReadShortString("reason"),
    };

    /// <summary>Value equality; the binary argument(s) compare by content.</summary>
    public bool Equals(ConnectionUpdateSecret? other) =>
        other is not null
        && base.Equals(other)
        && NewSecret.Span.SequenceEqual(other.NewSecret.Span)
        && EqualityComparer<string>.Default.Equals(Reason, other.Reason);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(base.GetHashCode(), NewSecret.Length, Reason);
}

/// <summary><c>connection.update-secret-ok</c> (10, 71). RabbitMQ extension: confirms connection.update-secret.</summary>
public sealed record ConnectionUpdateSecretOk : AmqpMethod
{
    /// <summary>Class id 10 (connection).</summary>
    public const ushort ClassIdValue = 10;
    /// <summary>Method id 71 (update-secret-ok).</summary>
    public const ushort MethodIdValue = 71;

    /// <inheritdoc/>
    public override ushort ClassId => ClassIdValue;
    /// <inheritdoc/>
    public override ushort MethodId => MethodIdValue;
    /// <inheritdoc/>
    public override string Name => "connection.update-secret-ok";
    /// <inheritdoc/>
    public override bool HasContent => false;

    internal override void WriteArguments(ref AmqpWriter writer)
    {
        writer.Flush();
    }

    internal static ConnectionUpdateSecretOk Read(ref AmqpReader reader) => new();
}
