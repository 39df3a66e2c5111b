using System.Globalization;

namespace AmqpConformance.Properties.Benchmarks;

/// <summary>Reads the benchmark's "--option value" arguments; a value that is missing or not of the option's kind is a
/// <see cref="BenchUsageException"/> naming the option and the value, which the program prints on one line (exit code 2).</summary>
internal sealed class BenchArguments(string[] args)
{
    /// <summary>The value after the first <paramref name="option"/>, or null when the option is not given.</summary>
    /// <exception cref="BenchUsageException">The option is the last argument.</exception>
    public string? Value(string option)
    {
        int at = Array.IndexOf(args, option);
        if (at < 0) return null;
        return at + 1 < args.Length ? args[at + 1] : throw new BenchUsageException($"{option}: a value is missing");
    }

    /// <summary>Every value given after <paramref name="option"/> (the option may repeat).</summary>
    public List<string> Values(string option) =>
        [.. args.Select((a, i) => (a, i)).Where(x => x.a == option && x.i + 1 < args.Length).Select(x => args[x.i + 1])];

    /// <summary>A whole number of at least <paramref name="least"/>, or <paramref name="fallback"/> when not given.</summary>
    /// <exception cref="BenchUsageException">The value is not such a number.</exception>
    public int Number(string option, int least, int fallback) => Value(option) is not { } text ? fallback
        : int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) && n >= least ? n
        : throw new BenchUsageException($"{option} {text}: not a whole number of at least {least}");

    /// <summary>A non-negative number of milliseconds, or null when not given.</summary>
    /// <exception cref="BenchUsageException">The value is not such a number.</exception>
    public TimeSpan? Milliseconds(string option) => Value(option) is not { } text ? null
        : double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double ms) && ms >= 0 && double.IsFinite(ms)
            && ms <= TimeSpan.MaxValue.TotalMilliseconds / 2
            ? TimeSpan.FromMilliseconds(ms)
            : throw new BenchUsageException($"{option} {text}: not a number of milliseconds, 0 or more");
}

/// <summary>A bad benchmark argument; its message says which and why.</summary>
internal sealed class BenchUsageException(string message) : Exception(message);
