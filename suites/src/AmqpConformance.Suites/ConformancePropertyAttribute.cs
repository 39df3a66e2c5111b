using Xunit;

namespace AmqpConformance.Suites;

/// <summary>
/// Marks a conformance property test: a <see cref="FactAttribute"/> whose case count and replay token the suite reads
/// when it runs the property. Precedence: <c>AMQP_CONFORMANCE_REPLAY</c> / <c>AMQP_CONFORMANCE_CASES</c> (environment),
/// then <see cref="Replay"/> / <see cref="MaxTest"/> here, then the suite's default.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class ConformancePropertyAttribute : FactAttribute
{
#if XUNIT_V3
    /// <summary>Marks a conformance property test; xunit v3 records where it is declared (the compiler fills both
    /// in).</summary>
    /// <param name="sourceFilePath">The file that declares the test.</param>
    /// <param name="sourceLineNumber">The line that declares it.</param>
    public ConformancePropertyAttribute(
        [System.Runtime.CompilerServices.CallerFilePath] string? sourceFilePath = null,
        [System.Runtime.CompilerServices.CallerLineNumber] int sourceLineNumber = -1
    )
        : base(sourceFilePath, sourceLineNumber) { }
#endif

    /// <summary>Cases to generate; 0 means the suite's default.</summary>
    public int MaxTest { get; set; }

    /// <summary>A replay token "seed,gamma,size" printed by an earlier failure: runs exactly that case.</summary>
    public string? Replay { get; set; }
}
