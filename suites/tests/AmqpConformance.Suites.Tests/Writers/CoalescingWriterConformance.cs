using AmqpConformance.Harness.Writers;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.Writers;

/// <summary>The conformance suite on the coalescing reference writer, standing in for a client's own ("Custom") writer.</summary>
[Trait("WriterMode", "Custom")]
public sealed class CoalescingWriterConformance(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
{
    protected override FrameWriterFactory Factory => WriterModes.Coalescing;
}
