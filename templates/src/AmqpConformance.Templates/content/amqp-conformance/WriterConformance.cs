using AmqpConformance.Harness.Writers;
using AmqpConformance.Suites;
using Xunit;
#if (XunitV3)
#else
using Xunit.Abstractions;
#endif

namespace AmqpConformanceTests;

/// <summary>
/// Makes your client's frame writer for each connection the suite opens. It starts out wired to AmqpConformance's
/// coalescing reference writer so that the suite passes out of the box: replace the body of <see cref="CreateWriter"/>
/// with your own <see cref="IFrameWriter"/> (or an adapter from your client's writer to it).
/// </summary>
public sealed class MyFrameWriterFactory : FrameWriterFactory
{
    public override string Name => "Mine";

    public override IFrameWriter CreateWriter(WriterContext context) => new CoalescingWriter(context); // your writer here

    /// <summary>When your writer completes a successful call. The coalescing writer completes it after the flush that
    /// delivered it, and the harness holds it to that even when the connection fails. If yours completes calls as soon
    /// as it queues them, say <see cref="WriterCompletion.OnAccept"/>; if you are not sure, remove this override
    /// (undeclared is judged leniently).</summary>
    public override WriterCompletion Completion => WriterCompletion.AfterFlush;
}

/// <summary>Every invariant on your writer: <c>dotnet test --filter WriterMode=Mine</c>. Cases per property: 100, or
/// <c>AMQP_CONFORMANCE_CASES</c>.</summary>
[Trait("WriterMode", "Mine")]
public sealed class MyWriterConformance(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
{
    protected override FrameWriterFactory Factory { get; } = new MyFrameWriterFactory();
}
