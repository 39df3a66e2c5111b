using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Suites.XunitV3.Tests;

/// <summary>The xunit v3 suite on the inline reference writer, as a v3 client repository subclasses it (fewer cases:
/// the xunit 2 suites run the full count on every reference writer).</summary>
[Trait("WriterMode", "Inline")]
public sealed class InlineWriterConformance(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
{
    protected override FrameWriterFactory Factory => WriterModes.Inline;

    protected override int DefaultCases => 30;
}
