using System.CommandLine.Parsing;

namespace AmqpConformance.Cli;

/// <summary>Reading an option's value inside its validator.</summary>
internal static class OptionValues
{
    /// <summary>The option's value, or false when it did not convert: System.CommandLine reports that error itself, and
    /// a validator that read the value anyway would throw instead of adding its own error.</summary>
    public static bool TryGet<T>(OptionResult result, out T? value)
    {
        try
        {
            value = result.GetValueOrDefault<T>();
            return true;
        }
        catch (InvalidOperationException)
        {
            value = default;
            return false;
        }
    }
}
