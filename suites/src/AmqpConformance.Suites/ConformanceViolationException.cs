namespace AmqpConformance.Suites;

/// <summary>Fails a conformance test: its message is the full failure report (invariant, shrunk scenario, violations,
/// replay line, artifacts).</summary>
public sealed class ConformanceViolationException : Exception
{
    /// <summary>Creates the exception with the report as its message.</summary>
    public ConformanceViolationException(string message)
        : base(message) { }

    /// <summary>Creates the exception.</summary>
    public ConformanceViolationException() { }

    /// <summary>Creates the exception with an inner exception.</summary>
    public ConformanceViolationException(string message, Exception innerException)
        : base(message, innerException) { }

    /// <summary>Only the report: the stack trace of the suite's plumbing helps nobody.</summary>
    public override string? StackTrace => null;
}
