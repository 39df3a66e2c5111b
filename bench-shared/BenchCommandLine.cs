using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;

namespace AmqpConformance.Benchmarks;

/// <summary>
/// The benchmark programs' command lines, parsed with System.CommandLine as amqp-conformance parses its own: a parse or
/// validation error never reaches System.CommandLine's default handling (every error plus the whole help text, exit 1)
/// but is one line on standard error naming the option and the value, with a pointer to <c>--help</c>, and exit code 2;
/// nothing runs. The options every program needs (whole numbers in a range, comma-separated lists of them) are made
/// here, their checks in their parsers. One source file, linked into each benchmark project (<c>bench-shared/</c> at
/// the repository root).
/// </summary>
internal static class BenchCommandLine
{
    /// <summary>Bad input: arguments that do not parse or validate (the CLI's exit code for it).</summary>
    public const int BadInput = 2;

    /// <summary>Parses <paramref name="args"/> against <paramref name="root"/> and runs the chosen command's action,
    /// its help and System.CommandLine's messages written to <paramref name="output"/> and <paramref name="error"/>.
    /// Returns the action's exit code, or <see cref="BadInput"/> after one line on <paramref name="error"/> when the
    /// arguments do not parse or validate. No response files (an argument starting with @ is an argument), and Ctrl+C
    /// ends a benchmark at once, as the runtime does, without a grace period for actions that would not notice
    /// it.</summary>
    public static async Task<int> RunAsync(
        RootCommand root,
        string program,
        string[] args,
        TextWriter output,
        TextWriter error
    )
    {
        ParseResult parse = root.Parse(args, new ParserConfiguration { ResponseFileTokenReplacer = null });
        if (parse.Errors.Count > 0)
        {
            string command = string.Join(' ', CommandPath(parse.CommandResult.Command, root, program));
            string errors = string.Join(' ', parse.Errors.Select(e => e.Message));
            await error.WriteLineAsync(OneLine($"{command}: {errors} See: {command} --help"));
            return BadInput;
        }
        return await parse.InvokeAsync(
            new InvocationConfiguration
            {
                Output = output,
                Error = error,
                ProcessTerminationTimeout = null,
            }
        );
    }

    /// <summary>An option taking one whole number from <paramref name="min"/> to <paramref name="max"/>,
    /// <paramref name="fallback"/> when not given.</summary>
    public static Option<int> Number(
        string name,
        string description,
        int fallback,
        int min = 1,
        int max = int.MaxValue
    ) =>
        new(name)
        {
            Description = description,
            HelpName = "N",
            DefaultValueFactory = _ => fallback,
            CustomParser = result => TryNumber(result, name, min, max, out int value) ? value : fallback,
        };

    /// <summary>An option taking one whole number from <paramref name="min"/> to <paramref name="max"/>, null when not
    /// given.</summary>
    public static Option<int?> OptionalNumber(string name, string description, int min = 1, int max = int.MaxValue) =>
        new(name)
        {
            Description = description,
            HelpName = "N",
            CustomParser = result => TryNumber(result, name, min, max, out int value) ? value : null,
        };

    /// <summary>An option taking whole numbers from <paramref name="min"/> to <paramref name="max"/>, comma-separated
    /// in one argument (<c>--sizes 256,1048576</c>), in the order given; <paramref name="fallback"/> when not
    /// given.</summary>
    public static Option<int[]> Numbers(
        string name,
        string description,
        int[] fallback,
        int min = 1,
        int max = int.MaxValue
    ) =>
        new(name)
        {
            Description = description,
            HelpName = "N[,N...]",
            Arity = ArgumentArity.ExactlyOne,
            DefaultValueFactory = _ => fallback,
            CustomParser = result =>
            {
                string text = result.Tokens[0].Value;
                var values = new List<int>();
                foreach (string part in text.Split(','))
                {
                    if (!TryParse(part.Trim(), min, max, out int value))
                    {
                        result.AddError(
                            $"{name} {text}: '{part}' is not {Range(min, max)} (give one, or a comma-separated list)"
                        );
                        return fallback;
                    }
                    values.Add(value);
                }
                return [.. values];
            },
        };

    /// <summary><paramref name="text"/> with its line breaks turned into spaces.</summary>
    public static string OneLine(string text) =>
        string.Join(
            ' ',
            text.Split(['\r', '\n'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
        );

    private static bool TryNumber(ArgumentResult result, string name, int min, int max, out int value)
    {
        string text = result.Tokens[0].Value;
        if (TryParse(text, min, max, out value))
            return true;
        result.AddError($"{name} {text}: not {Range(min, max)}");
        return false;
    }

    private static bool TryParse(string text, int min, int max, out int value) =>
        int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) && value >= min && value <= max;

    private static string Range(int min, int max) =>
        max != int.MaxValue ? $"a whole number from {min} to {max}"
        : min == 1 ? "a positive whole number"
        : $"a whole number of at least {min}";

    private static IEnumerable<string> CommandPath(Command command, Command root, string program)
    {
        var names = new Stack<string>();
        for (Command? c = command; c is not null && c != root; c = c.Parents.OfType<Command>().FirstOrDefault())
            names.Push(c.Name);
        names.Push(program);
        return names;
    }
}
