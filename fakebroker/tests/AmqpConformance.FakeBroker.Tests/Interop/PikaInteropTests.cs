using Xunit.Abstractions;

namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>Python's pika (Debian python3-pika 1.2) against the fake broker.</summary>
[Trait("Category", "Interop")]
[Trait("Client", "pika")]
public sealed class PikaInteropTests(ITestOutputHelper output)
{
    [RequiresPikaTheory]
    [InlineData(4096)]
    [InlineData(131072)]
    public async Task Publishes_with_confirms_on_several_channels_and_consumes_back_byte_exact(int frameMax)
    {
        await InteropRun.RunAsync(
            "pika",
            InteropScripts.Python,
            [InteropScripts.PythonScript],
            frameMax,
            new HashSet<string>(),
            output
        );
    }
}
