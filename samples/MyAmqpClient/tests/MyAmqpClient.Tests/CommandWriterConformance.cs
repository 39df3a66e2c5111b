using AmqpConformance.Harness.Writers;
using AmqpConformance.Suites;
using Xunit;
using Xunit.Abstractions;

namespace MyAmqpClient.Tests;

/// <summary>Every AmqpConformance invariant, checked on this client's writer: <c>dotnet test --filter
/// WriterMode=Mine</c>.</summary>
[Trait("WriterMode", "Mine")]
public sealed class CommandWriterConformance(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
{
    protected override FrameWriterFactory Factory { get; } = new CommandWriterFactory();

    /// <summary>Fewer cases than the default 100 for a quick local run; CI gates raise it with
    /// AMQP_CONFORMANCE_CASES.</summary>
    protected override int DefaultCases => 25;
}
