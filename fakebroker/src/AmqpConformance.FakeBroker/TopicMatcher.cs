namespace AmqpConformance.FakeBroker;

/// <summary>AMQP topic matching: words separated by '.', '*' matches exactly one word, '#' zero or more.</summary>
internal static class TopicMatcher
{
    /// <summary>Whether <paramref name="routingKey"/> matches the binding <paramref name="pattern"/>.</summary>
    public static bool Matches(string pattern, string routingKey) =>
        Match(pattern.Split('.'), 0, routingKey.Split('.'), 0);

    private static bool Match(string[] pattern, int p, string[] words, int w)
    {
        while (true)
        {
            if (p == pattern.Length)
                return w == words.Length;
            if (pattern[p] == "#")
            {
                // '#' swallows zero or more words: try each split point.
                for (int skip = w; skip <= words.Length; skip++)
                    if (Match(pattern, p + 1, words, skip))
                        return true;
                return false;
            }
            if (w == words.Length)
                return false;
            if (pattern[p] != "*" && !string.Equals(pattern[p], words[w], StringComparison.Ordinal))
                return false;
            p++;
            w++;
        }
    }
}
