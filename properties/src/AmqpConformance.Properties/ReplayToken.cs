using System.Globalization;

namespace AmqpConformance.Properties;

/// <summary>FsCheck's replay coordinates of a failing case, as "seed,gamma,size": paste it into
/// <c>AMQP_CONFORMANCE_REPLAY</c>, <c>[ConformanceProperty(Replay = ...)]</c> or <c>amqp-conformance run
/// --replay</c>.</summary>
/// <param name="Seed">The random generator's seed.</param>
/// <param name="Gamma">The random generator's gamma.</param>
/// <param name="Size">The FsCheck size at which the case was generated.</param>
public sealed record ReplayToken(ulong Seed, ulong Gamma, int Size)
{
    /// <summary>The environment variable the suites read a replay token from.</summary>
    public const string EnvironmentVariable = "AMQP_CONFORMANCE_REPLAY";

    /// <summary>"seed,gamma,size".</summary>
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Seed},{Gamma},{Size}");

    /// <summary>Parses "seed,gamma,size" (spaces and parentheses allowed).</summary>
    /// <exception cref="FormatException">The text is not three comma-separated numbers.</exception>
    public static ReplayToken Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var parts = text.Trim().Trim('(', ')', '"').Split(',', StringSplitOptions.TrimEntries);
        if (
            parts.Length == 3
            && ulong.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out ulong seed)
            && ulong.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out ulong gamma)
            && int.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out int size)
        )
            return new ReplayToken(seed, gamma, size);
        throw new FormatException(
            $"\"{text}\" is not a replay token; expected \"seed,gamma,size\" as printed by a failing property, e.g. \"1301973733876529225,7221143012439261311,7\"."
        );
    }
}
