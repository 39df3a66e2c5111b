using System.CommandLine;

namespace AmqpConformance.Cli;

/// <summary>
/// amqp-conformance as a callable: parses the arguments and runs the chosen command. Parse and validation errors never
/// reach System.CommandLine's default handling (every error plus the whole help text, exit 1): the errors are printed
/// as one line naming the command, with a pointer to its <c>--help</c>, and the exit code is
/// <see cref="ExitCodes.BadInput"/>.
/// </summary>
internal static class CliApplication
{
    /// <summary>The tool's name as users type it.</summary>
    public const string Name = "amqp-conformance";

    /// <summary>The root command with every subcommand.</summary>
    public static RootCommand CreateRoot()
    {
        var root = new RootCommand($"{Name}: fake AMQP 0-9-1 broker, fault proxy and frame-writer conformance runner.");
        foreach (Command command in CliCommands.All())
            root.Subcommands.Add(command);
        return root;
    }

    /// <summary>Runs the command <paramref name="args"/> name, writing to <paramref name="output"/> and
    /// <paramref name="error"/>. Returns the command's exit code, or <see cref="ExitCodes.BadInput"/> after one line on
    /// <paramref name="error"/> when the arguments do not parse or validate.</summary>
    public static async Task<int> RunAsync(
        string[] args,
        TextWriter output,
        TextWriter error,
        CancellationToken cancellationToken = default
    )
    {
        ParseResult parse = CreateRoot().Parse(args);
        if (parse.Errors.Count > 0)
        {
            string command = string.Join(
                " ",
                CommandPath(parse.CommandResult.Command, parse.RootCommandResult.Command)
            );
            string errors = string.Join(" ", parse.Errors.Select(e => e.Message));
            await error.WriteLineAsync(OneLine($"{command}: {errors} See: {command} --help"));
            return ExitCodes.BadInput;
        }
        return await parse.InvokeAsync(
            new InvocationConfiguration { Output = output, Error = error },
            cancellationToken
        );
    }

    /// <summary>Writes <paramref name="message"/> to <paramref name="error"/> as one line and returns
    /// <see cref="ExitCodes.BadInput"/>.</summary>
    public static int BadInput(TextWriter error, string message)
    {
        error.WriteLine(OneLine(message));
        return ExitCodes.BadInput;
    }

    /// <summary><paramref name="text"/> with its line breaks (an exception message may carry some) turned into
    /// spaces.</summary>
    public static string OneLine(string text) =>
        string.Join(
            ' ',
            text.Split(['\r', '\n'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
        );

    private static IEnumerable<string> CommandPath(Command command, Command root)
    {
        var names = new Stack<string>();
        for (Command? c = command; c is not null && c != root; c = c.Parents.OfType<Command>().FirstOrDefault())
            names.Push(c.Name);
        names.Push(Name);
        return names;
    }
}
