using AmqpConformance.Harness.Writers;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.Writers;

/// <summary>The conformance suite on the inline (semaphore, no copy) reference writer: PR #1912's proposal.</summary>
[Trait("WriterMode", "Inline")]
public sealed class InlineWriterConformance(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
{
    protected override FrameWriterFactory Factory => WriterModes.Inline;
}
