using AmqpConformance.Harness.Writers;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.Writers;

/// <summary>The conformance suite on the background (bounded channel + copy) reference writer.</summary>
[Trait("WriterMode", "Background")]
public sealed class BackgroundWriterConformance(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
{
    protected override FrameWriterFactory Factory => WriterModes.Background;
}
