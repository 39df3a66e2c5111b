using Spectre.Console;

namespace AmqpConformance.Cli;

/// <summary>How the CLI's tables and progress bars are drawn on an output: with colour and other ANSI codes only when
/// the output is this process's standard output, that is a terminal (not redirected to a file or a pipe), and the
/// <c>NO_COLOR</c> environment variable (https://no-color.org) is unset or empty. Anywhere else (a CI log, a file, a
/// test's writer) the same tables come out as plain text, so a log can be searched for "VIOLATED" without escape codes
/// in the way.</summary>
internal static class ConsoleStyle
{
    /// <summary>A Spectre console writing to <paramref name="output"/>, styled as the class says.</summary>
    public static IAnsiConsole For(TextWriter output)
    {
        bool styled =
            ReferenceEquals(output, Console.Out)
            && !Console.IsOutputRedirected
            && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("NO_COLOR"));
        return AnsiConsole.Create(
            new AnsiConsoleSettings
            {
                Out = new AnsiConsoleOutput(output),
                Ansi = styled ? AnsiSupport.Detect : AnsiSupport.No,
                ColorSystem = styled ? ColorSystemSupport.Detect : ColorSystemSupport.NoColors,
            }
        );
    }
}
