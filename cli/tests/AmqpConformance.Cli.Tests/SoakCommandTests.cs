using System.CommandLine;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>run --soak DURATION</c>: how the duration is read, and a short soak of a correct reference writer, which
/// must hold.</summary>
public sealed class SoakCommandTests
{
    [Theory]
    [InlineData("90s", 90)]
    [InlineData("10m", 600)]
    [InlineData("1.5h", 5400)]
    [InlineData("500ms", 0.5)]
    [InlineData(" 2M ", 120)]
    [InlineData("00:10:00", 600)]
    public void A_duration_reads_with_its_unit(string text, double seconds)
    {
        Assert.True(SoakDuration.TryParse(text, out var duration));
        Assert.Equal(TimeSpan.FromSeconds(seconds), duration);
    }

    [Theory]
    [InlineData("")]
    [InlineData("10")]
    [InlineData("m")]
    [InlineData("10x")]
    [InlineData("0s")]
    [InlineData("-1m")]
    [InlineData("1e3s")]
    [InlineData("00:00:00")]
    [InlineData("8d")]
    public void Anything_else_is_refused(string text) => Assert.False(SoakDuration.TryParse(text, out _));

    [Fact]
    public void A_short_soak_of_a_correct_writer_holds_and_prints_its_samples()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(1));
        var output = new StringWriter();
        var error = new StringWriter();
        var root = new RootCommand { RunCommand.Create() };
        int code = root.Parse(["run", "--writer", "background", "--soak", "2s"])
            .InvokeAsync(new InvocationConfiguration { Output = output, Error = error }, timeout.Token)
            .GetAwaiter()
            .GetResult();
        Assert.True(code == 0, output.ToString() + error);
        Assert.Contains("bytes held", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("Background: HOLDS over", output.ToString(), StringComparison.Ordinal);
    }
}
