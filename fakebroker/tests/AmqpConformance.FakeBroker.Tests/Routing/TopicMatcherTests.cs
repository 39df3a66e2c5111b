namespace AmqpConformance.FakeBroker.Tests.Routing;

public sealed class TopicMatcherTests
{
    [Theory]
    [InlineData("a.b.c", "a.b.c", true)]
    [InlineData("a.*.c", "a.b.c", true)]
    [InlineData("a.*.c", "a.c", false)]
    [InlineData("a.#", "a", true)]
    [InlineData("a.#", "a.b.c", true)]
    [InlineData("#", "", true)]
    [InlineData("#", "x.y", true)]
    [InlineData("#.c", "a.b.c", true)]
    [InlineData("#.c", "a.b.d", false)]
    [InlineData("a.#.c", "a.c", true)]
    [InlineData("a.#.c", "a.x.y.c", true)]
    [InlineData("*", "a.b", false)]
    [InlineData("*.*", "a.b", true)]
    [InlineData("a.b", "a.bb", false)]
    public void Matches_like_RabbitMQ(string pattern, string key, bool expected) =>
        Assert.Equal(expected, TopicMatcher.Matches(pattern, key));
}
