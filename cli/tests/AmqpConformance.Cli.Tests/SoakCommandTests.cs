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
        var (code, output, error) = InProcessCli.Invoke(
            RunCommand.Create(),
            TimeSpan.FromMinutes(1),
            "--writer",
            "background",
            "--soak",
            "2s"
        );
        Assert.True(code == 0, output + error);
        Assert.Contains("bytes held", output, StringComparison.Ordinal);
        Assert.Contains("Background: HOLDS over", output, StringComparison.Ordinal);
    }
}
