namespace AmqpConformance.Cli;

/// <summary>The exit codes of every amqp-conformance command.</summary>
internal static class ExitCodes
{
    /// <summary>Everything held (run), or a clean stop (broker, proxy), or no finding (fuzz).</summary>
    public const int Ok = 0;

    /// <summary>A violation (run), a finding (fuzz), or a failure while running (broker: a recording could not be
    /// written).</summary>
    public const int Violation = 1;

    /// <summary>Bad input: unparsable arguments, a value out of range, a file or address that cannot be used. One line
    /// on standard error says what, and nothing ran.</summary>
    public const int BadInput = 2;

    /// <summary>Stopped by a termination signal (Ctrl+C, SIGINT, SIGTERM: 128 + 2) after printing what had
    /// run.</summary>
    public const int Interrupted = 130;
}
