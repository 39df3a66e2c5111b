using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Parsing;
using AmqpConformance.Benchmarks;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>
/// The writer benchmarks' program as a callable: the custom runner (<see cref="WriterRunner"/>) by default, and
/// <c>bdn</c>, which hands every argument after it, as given, to BenchmarkDotNet (<see cref="BdnEntryPoint"/>). Parsed
/// with System.CommandLine (<c>--help</c>); bad input is one line on standard error and exit code 2, and nothing runs.
/// </summary>
public static class BenchmarkProgram
{
    /// <summary>The program's name as its errors and help name it.</summary>
    public const string Name = "AmqpConformance.Harness.Benchmarks";

    /// <summary>Parses <paramref name="args"/> and runs what they name. Help and parse errors go to
    /// <paramref name="output"/> and <paramref name="error"/>; a benchmark prints its figures to the console. Returns
    /// the exit code: 2 after one line on <paramref name="error"/> when the arguments are wrong.</summary>
    public static Task<int> RunAsync(string[] args, TextWriter output, TextWriter error) =>
        RunAsync(args, output, error, BdnEntryPoint.Run);

    /// <summary><see cref="RunAsync(string[], TextWriter, TextWriter)"/> with <paramref name="bdn"/> in place of
    /// BenchmarkDotNet: it gets the arguments after <c>bdn</c> and returns the exit code.</summary>
    public static Task<int> RunAsync(string[] args, TextWriter output, TextWriter error, Func<string[], int> bdn) =>
        BenchCommandLine.RunAsync(CreateRoot(args, bdn), Name, args, output, error);

    private static RootCommand CreateRoot(string[] args, Func<string[], int> bdn)
    {
        var quick = new Option<bool>("--quick")
        {
            Description = "A short run: 1 measured iteration, 32 MiB per scenario.",
        };
        var tracking = new Option<bool>("--tracking")
        {
            Description =
                "Rent from a TrackingArrayPool (its ledger checked at the end) instead of ArrayPool<byte>.Shared.",
        };
        var noPeak = new Option<bool>("--no-peak") { Description = "Skip the peak-memory (PR #1912) scenario." };
        var noThroughput = new Option<bool>("--no-throughput")
        {
            Description = "Skip the throughput rows and the costly-flush section.",
        };
        var body = BenchCommandLine.Numbers(
            "--body",
            "The throughput rows' body sizes in bytes.",
            [256, 16 * 1024, 1 << 20]
        );
        var publishers = BenchCommandLine.Numbers("--publishers", "The throughput rows' publisher counts.", [1, 4, 16]);
        var flushCost = BenchCommandLine.Number(
            "--flush-cost-us",
            "CPU cost per flush, in microseconds, in the costly-flush section (0 skips it).",
            10,
            min: 0
        );
        var bdnArguments = new Argument<string[]>("BenchmarkDotNet arguments")
        {
            Description =
                "Handed to BenchmarkDotNet as given (--filter '*', --job short, --list flat, its own --help, ...).",
            Arity = ArgumentArity.ZeroOrMore,
            CaptureRemainingTokens = true,
        };
        var bdnCommand = new Command(
            "bdn",
            "The throughput/allocation matrix (SmallBodyWriterBenchmarks, LargeBodyWriterBenchmarks) under BenchmarkDotNet, with a msgs/s column and one joined summary."
        )
        {
            bdnArguments,
        };
        // The arguments after bdn exactly as given: the parser would drop a leading "--", which BenchmarkDotNet should
        // see.
        bdnCommand.SetAction(_ => bdn(args[(Array.IndexOf(args, "bdn") + 1)..]));
        bdnCommand.Validators.Add(result =>
        {
            if (
                result.Parent is CommandResult program
                && program.Children.OfType<OptionResult>().FirstOrDefault(o => !o.Implicit) is { } option
            )
                result.AddError(
                    $"{option.IdentifierToken?.Value}: not for bdn (the custom runner's option; put BenchmarkDotNet's after bdn)"
                );
        });
        var root = new RootCommand(
            "Writer benchmarks: the three reference writers and a raw baseline into an in-memory sink (msgs/s, MiB/s, allocation per publish, "
                + "publishes per flush), a costly-flush section, the PR #1912 peak-memory scenario, then the goals. `bdn` runs the matrix under BenchmarkDotNet."
        )
        {
            quick,
            tracking,
            noPeak,
            noThroughput,
            body,
            publishers,
            flushCost,
            bdnCommand,
        };
        // Help for the program, not for bdn: `bdn --help` (like every argument after bdn) is BenchmarkDotNet's.
        foreach (HelpOption help in root.Options.OfType<HelpOption>())
            help.Recursive = false;
        root.SetAction(parse =>
            new WriterRunner(
                new RunnerOptions(
                    parse.GetValue(quick),
                    parse.GetValue(tracking),
                    parse.GetValue(noPeak),
                    parse.GetValue(noThroughput),
                    parse.GetValue(body)!,
                    parse.GetValue(publishers)!,
                    parse.GetValue(flushCost)
                )
            ).RunAsync()
        );
        return root;
    }
}
