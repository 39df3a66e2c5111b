using Xunit.Abstractions;

namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>The Node.js amqplib client (version pinned in fakebroker/tests/interop/node/package.json) against the fake
/// broker.</summary>
[Trait("Category", "Interop")]
[Trait("Client", "amqplib")]
public sealed class AmqplibInteropTests(ITestOutputHelper output)
{
    /// <summary>amqplib multiplexes its channels' frame streams, so another channel's frames can arrive between a
    /// publish's method, header and body frames: legal for RabbitMQ, reported by the strict profile.</summary>
    private static readonly HashSet<string> KnownStrictRules = ["content-interleaved"];

    [RequiresAmqplibTheory]
    [InlineData(4096)]
    [InlineData(131072)]
    public async Task Publishes_with_confirms_on_several_channels_and_consumes_back_byte_exact(int frameMax)
    {
        await InteropRun.RunAsync(
            "amqplib",
            InteropScripts.FindOnPath("node")!,
            [InteropScripts.NodeScript],
            frameMax,
            KnownStrictRules,
            output
        );
    }
}
