namespace AmqpConformance.FakeBroker;

/// <summary>The AMQP 0-9-1 reply codes the fake broker uses, with RabbitMQ's reply-text prefixes.</summary>
public static class ReplyCodes
{
    /// <summary>Normal close.</summary>
    public const ushort Success = 200;

    /// <summary>Content could not be routed (basic.return of a mandatory publish).</summary>
    public const ushort NoRoute = 312;

    /// <summary>The broker is shutting down the connection.</summary>
    public const ushort ConnectionForced = 320;

    /// <summary>Login refused (connection) or access to a reserved name refused (channel).</summary>
    public const ushort AccessRefused = 403;

    /// <summary>An exchange or queue does not exist (channel).</summary>
    public const ushort NotFound = 404;

    /// <summary>An exclusive queue belongs to another connection (channel).</summary>
    public const ushort ResourceLocked = 405;

    /// <summary>A redeclare with other arguments, an unknown delivery tag, ... (channel).</summary>
    public const ushort PreconditionFailed = 406;

    /// <summary>Malformed frame: bad frame-end octet, frame larger than frame_max, unknown frame type, undecodable
    /// method.</summary>
    public const ushort FrameError = 501;

    /// <summary>Invalid command arguments.</summary>
    public const ushort SyntaxError = 502;

    /// <summary>Invalid command (e.g. unknown exchange type).</summary>
    public const ushort CommandInvalid = 503;

    /// <summary>A frame for a channel that is not open, or a second channel.open.</summary>
    public const ushort ChannelError = 504;

    /// <summary>A frame out of sequence: content without its method, a method while content was expected, a heartbeat
    /// off channel 0.</summary>
    public const ushort UnexpectedFrame = 505;

    /// <summary>Not allowed: unknown virtual host, bad tune-ok values, too many channels.</summary>
    public const ushort NotAllowed = 530;

    /// <summary>A method the broker does not implement.</summary>
    public const ushort NotImplemented = 540;

    /// <summary>The broker failed internally.</summary>
    public const ushort InternalError = 541;

    /// <summary>RabbitMQ's reply-text prefix for <paramref name="code"/> ("FRAME_ERROR", ...).</summary>
    public static string NameOf(ushort code) =>
        code switch
        {
            Success => "OK",
            NoRoute => "NO_ROUTE",
            ConnectionForced => "CONNECTION_FORCED",
            AccessRefused => "ACCESS_REFUSED",
            NotFound => "NOT_FOUND",
            ResourceLocked => "RESOURCE_LOCKED",
            PreconditionFailed => "PRECONDITION_FAILED",
            FrameError => "FRAME_ERROR",
            SyntaxError => "SYNTAX_ERROR",
            CommandInvalid => "COMMAND_INVALID",
            ChannelError => "CHANNEL_ERROR",
            UnexpectedFrame => "UNEXPECTED_FRAME",
            NotAllowed => "NOT_ALLOWED",
            NotImplemented => "NOT_IMPLEMENTED",
            InternalError => "INTERNAL_ERROR",
            _ => "REPLY_" + code.ToString(System.Globalization.CultureInfo.InvariantCulture),
        };
}
