using AmqpConformance.Harness.Writers;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.Writers;

/// <summary>The conformance suite on the coalescing reference writer, this project's own design.</summary>
[Trait("WriterMode", "Coalescing")]
public sealed class CoalescingWriterConformance(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
{
    protected override FrameWriterFactory Factory => WriterModes.Coalescing;
}
