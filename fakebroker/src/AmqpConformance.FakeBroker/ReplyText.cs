using System.Text;

namespace AmqpConformance.FakeBroker;

/// <summary>Reply texts of connection.close and channel.close are AMQP short strings (at most 255 bytes of
/// UTF-8).</summary>
internal static class ReplyText
{
    /// <summary>The most bytes a short string holds.</summary>
    public const int MaxBytes = 255;

    /// <summary><paramref name="text"/> unchanged when it fits; otherwise its first 252 bytes (never cutting a
    /// character) followed by "...", which is what RabbitMQ 3.x sends in place of an explanation that is too
    /// long.</summary>
    public static string Fit(string text)
    {
        if (Encoding.UTF8.GetByteCount(text) <= MaxBytes)
            return text;
        int budget = MaxBytes - 3,
            used = 0,
            end = 0;
        foreach (var rune in text.EnumerateRunes())
        {
            if (used + rune.Utf8SequenceLength > budget)
                break;
            used += rune.Utf8SequenceLength;
            end += rune.Utf16SequenceLength;
        }
        return string.Concat(text.AsSpan(0, end), "...");
    }
}
