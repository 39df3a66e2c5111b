using System.Globalization;

namespace AmqpConformance.Properties.Running;

/// <summary>Reads a soak's duration (<c>amqp-conformance run --soak</c> and <c>AMQP_CONFORMANCE_SOAK</c>): a positive number with a unit,
/// <c>ms</c>, <c>s</c>, <c>m</c> or <c>h</c> (<c>90s</c>, <c>10m</c>, <c>1.5h</c>), or a time span
/// (<c>00:10:00</c>).</summary>
public static class SoakDuration
{
    /// <summary>What a valid value looks like, for error messages.</summary>
    public const string Expected = "expected a positive duration such as 90s, 10m, 1h or 00:10:00";

    /// <summary>Parses <paramref name="text"/>; false for anything else, zero or negative.</summary>
    public static bool TryParse(string? text, out TimeSpan duration)
    {
        duration = default;
        if (string.IsNullOrWhiteSpace(text))
            return false;
        string t = text.Trim().ToLowerInvariant();
        (string unit, double scale)[] units = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)];
        foreach (var (unit, scale) in units)
        {
            if (!t.EndsWith(unit, StringComparison.Ordinal))
                continue;
            string number = t[..^unit.Length];
            if (
                number.Length == 0
                || !char.IsAsciiDigit(number[^1])
                || !double.TryParse(number, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out double n)
            )
                return false;
            double seconds = n * scale;
            if (seconds <= 0 || seconds > TimeSpan.FromDays(7).TotalSeconds)
                return false;
            duration = TimeSpan.FromSeconds(seconds);
            return true;
        }
        return t.Contains(':', StringComparison.Ordinal)
            && TimeSpan.TryParse(t, CultureInfo.InvariantCulture, out duration)
            && duration > TimeSpan.Zero;
    }
}
