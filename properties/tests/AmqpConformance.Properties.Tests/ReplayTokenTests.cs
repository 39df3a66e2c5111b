namespace AmqpConformance.Properties.Tests;

public sealed class ReplayTokenTests
{
    [Theory]
    [InlineData("1,2,3")]
    [InlineData(" (1, 2, 3) ")]
    [InlineData("\"1,2,3\"")]
    public void Parses_what_failures_print(string text) =>
        Assert.Equal(new ReplayToken(1, 2, 3), ReplayToken.Parse(text));

    [Fact]
    public void Round_trips_and_rejects_garbage()
    {
        var token = new ReplayToken(18446744073709551615, 7, 42);
        Assert.Equal(token, ReplayToken.Parse(token.ToString()));
        Assert.Throws<FormatException>(() => ReplayToken.Parse("1,2"));
        Assert.Throws<FormatException>(() => ReplayToken.Parse("a,b,c"));
    }
}
