using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.Writers;

/// <summary>The nightly soak (<see cref="SoakRunner"/>): each reference writer over one long connection for
/// <c>AMQP_CONFORMANCE_SOAK</c> (<c>dotnet test --filter "Category=Soak"</c>, with <c>&amp;WriterMode=Inline</c> for
/// one writer); skipped when the variable is unset, so the default run is unaffected.</summary>
[Trait("Category", "Soak")]
public sealed class WriterSoakTests(ITestOutputHelper output)
{
    [SoakFact]
    [Trait("WriterMode", "Background")]
    public Task Background() => SoakAsync(WriterModes.Background);

    [SoakFact]
    [Trait("WriterMode", "Inline")]
    public Task Inline() => SoakAsync(WriterModes.Inline);

    [SoakFact]
    [Trait("WriterMode", "Coalescing")]
    public Task Coalescing() => SoakAsync(WriterModes.Coalescing);

    private async Task SoakAsync(FrameWriterFactory factory)
    {
        var result = await SoakRunner.RunAsync(factory, SoakOptions.For(SoakFactAttribute.Duration));
        var last = result.Samples.Count > 0 ? result.Samples[^1] : null;
        output.WriteLine(
            $"{result.Writer}: {result.Rounds} rounds, {result.Calls} calls in {result.Elapsed}; last idle sample: {last}"
        );
        Assert.True(result.Holds, string.Join(Environment.NewLine, result.Violations));
    }
}
