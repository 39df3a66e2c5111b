using FakeBrokerBenchmarks = AmqpConformance.FakeBroker.Benchmarks.BenchmarkProgram;
using HarnessBenchmarks = AmqpConformance.Harness.Benchmarks.BenchmarkProgram;
using PropertiesBenchmarks = AmqpConformance.Properties.Benchmarks.BenchmarkProgram;

namespace AmqpConformance.Cli.Tests.Benchmarks;

/// <summary>
/// The three benchmark programs (fakebroker/, harness/ and properties/bench/) parse their command lines as
/// amqp-conformance does: bad input is one line on standard error naming the option and the value, nothing on standard
/// output, exit code 2, and no benchmark runs; <c>--help</c> prints the options and exits 0. Run in-process through
/// each program's entry method; nothing here gets as far as a measurement (the harness's <c>bdn</c> mode is handed a
/// stand-in for BenchmarkDotNet).
/// </summary>
public sealed class BenchmarkArgumentTests
{
    private const string FakeBroker = "fakebroker",
        Harness = "harness",
        Properties = "properties";

    /// <summary>Which program, its arguments, and what the one line must contain.</summary>
    public static TheoryData<string, string[], string> BadInput() =>
        new()
        {
            { FakeBroker, ["--clients", "0"], "--clients 0: '0' is not a positive whole number" },
            { FakeBroker, ["--sizes", "256,abc"], "--sizes 256,abc: 'abc' is not a positive whole number" },
            { FakeBroker, ["--megabytes", "-5"], "--megabytes -5: not a positive whole number" },
            { FakeBroker, ["--rounds", "abc"], "--rounds abc: not a positive whole number" },
            { FakeBroker, ["--retain", "0"], "--retain 0: not a positive whole number" },
            { FakeBroker, ["--rounds"], "--rounds" },
            { FakeBroker, ["--clients", "1", "4"], "'4'" },
            { FakeBroker, ["--no-such-option"], "--no-such-option" },
            { FakeBroker, ["frobnicate"], "frobnicate" },
            {
                FakeBroker,
                ["race", "--sizes", "999999999"],
                "--sizes 999999999: '999999999' is not a whole number from 1 to 134217728"
            },
            {
                FakeBroker,
                ["race", "--connections", "65"],
                "--connections 65: '65' is not a whole number from 1 to 64"
            },
            { FakeBroker, ["race", "--window", "abc"], "--window abc: not a whole number from 1 to 1000000" },
            { FakeBroker, ["race", "--rabbitmq", "no-port-here"], "--rabbitmq: 'no-port-here' is not host:port" },
            { FakeBroker, ["race", "--rabbitmq", "127.0.0.1:99999"], "99999" },
            { FakeBroker, ["race", "--clients", "1"], "--clients" },
            { FakeBroker, ["retention", "--retention", "forever"], "forever" },
            { FakeBroker, ["retention", "--cycles", "abc"], "--cycles abc: not a positive whole number" },
            { FakeBroker, ["retention", "--parallel", "0"], "--parallel 0: not a positive whole number" },
            { FakeBroker, ["inmemory", "--size", "abc"], "--size abc: not a positive whole number" },
            { FakeBroker, ["inmemory", "--messages", "0"], "--messages 0: not a positive whole number" },
            { FakeBroker, ["digest", "--gigabytes", "abc"], "--gigabytes abc: not a number of GB" },
            { FakeBroker, ["digest", "--rounds", "0"], "--rounds 0: not a positive whole number" },
            { Harness, ["--body", "abc"], "--body abc: 'abc' is not a positive whole number" },
            { Harness, ["--publishers", "0"], "--publishers 0: '0' is not a positive whole number" },
            { Harness, ["--publishers", "4,-1"], "--publishers 4,-1: '-1' is not a positive whole number" },
            { Harness, ["--flush-cost-us", "-1"], "--flush-cost-us -1: not a whole number of at least 0" },
            { Harness, ["--body", "256", "16384"], "'16384'" },
            { Harness, ["--body"], "--body" },
            { Harness, ["--no-such-option"], "--no-such-option" },
            { Harness, ["--quick", "bdn", "--filter", "*"], "--quick: not for bdn" },
            { Properties, ["--cases", "0"], "--cases 0: not a positive whole number" },
            { Properties, ["--cases", "abc"], "--cases abc: not a positive whole number" },
            { Properties, ["--warmup", "-1"], "--warmup -1: not a whole number of at least 0" },
            {
                Properties,
                ["--writer", "inline", "--writer", "Nope"],
                "--writer Nope: no reference writer of that name"
            },
            { Properties, ["--profile", "everything"], "--profile everything: not mixed, legacy-free or an invariant" },
            { Properties, ["--grace-wait", "-1"], "--grace-wait -1: not a number of milliseconds, 0 or more" },
            { Properties, ["--fault-reaction-wait", "abc"], "--fault-reaction-wait abc: not a number of milliseconds" },
            { Properties, ["--no-such-option"], "--no-such-option" },
        };

    [Theory]
    [MemberData(nameof(BadInput))]
    public async Task Bad_input_is_one_line_naming_the_option_and_exit_code_2(
        string program,
        string[] args,
        string expected
    )
    {
        var (code, output, error) = await RunAsync(program, args);
        string[] lines = error.EndsWith('\n') ? error[..^1].Split('\n') : error.Split('\n'); // blank lines count
        Assert.True(
            code == 2,
            $"exit code {code} for {program} {string.Join(' ', args)}; stderr: {error}; stdout: {output}"
        );
        Assert.True(lines.Length == 1, $"expected one line for {program} {string.Join(' ', args)}, got:\n{error}");
        Assert.Contains(expected, lines[0], StringComparison.Ordinal);
        Assert.StartsWith(ProgramName(program), lines[0], StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", lines[0], StringComparison.Ordinal); // no stack trace folded into the line
        Assert.Equal("", output);
    }

    /// <summary>Which program, its arguments, and options its help must list.</summary>
    public static TheoryData<string, string[], string[]> Help() =>
        new()
        {
            {
                FakeBroker,
                ["--help"],
                [
                    "--clients",
                    "--megabytes",
                    "--sizes",
                    "--rounds",
                    "--retain",
                    "--trace-allocations",
                    "retention",
                    "race",
                    "inmemory",
                    "digest",
                ]
            },
            {
                FakeBroker,
                ["race", "--help"],
                [
                    "--sizes",
                    "--connections",
                    "--megabytes",
                    "--max-messages",
                    "--window",
                    "--window-megabytes",
                    "--warmup",
                    "--rabbitmq",
                    "--trace-allocations",
                ]
            },
            { FakeBroker, ["retention", "-h"], ["--cycles", "--warmup", "--parallel", "--retention"] },
            { FakeBroker, ["inmemory", "--help"], ["--size", "--messages", "--rounds"] },
            { FakeBroker, ["digest", "--help"], ["--rounds", "--gigabytes"] },
            {
                Harness,
                ["--help"],
                [
                    "--quick",
                    "--tracking",
                    "--no-peak",
                    "--no-throughput",
                    "--body",
                    "--publishers",
                    "--flush-cost-us",
                    "bdn",
                ]
            },
            {
                Properties,
                ["--help"],
                [
                    "--cases",
                    "--writer",
                    "--profile",
                    "--fault-reaction-wait",
                    "--grace-window",
                    "--grace-wait",
                    "--warmup",
                ]
            },
        };

    [Theory]
    [MemberData(nameof(Help))]
    public async Task Help_lists_the_options_and_exits_0(string program, string[] args, string[] options)
    {
        var (code, output, error) = await RunAsync(program, args);
        Assert.True(code == 0, $"exit code {code}; stderr: {error}");
        Assert.Equal("", error);
        Assert.Contains("Usage:", output, StringComparison.Ordinal);
        foreach (string option in options)
            Assert.Contains(option, output, StringComparison.Ordinal);
    }

    /// <summary>What follows <c>bdn</c>: options of BenchmarkDotNet's, its help, a response file, and this program's
    /// own options.</summary>
    public static TheoryData<string[]> BdnArguments() =>
        new()
        {
            { [] },
            { ["--filter", "*", "--job", "short", "--iterationCount", "9"] },
            { ["--help"] },
            { ["-h"] },
            { ["--", "--filter", "*"] },
            { ["--filter", "*", "--", "-h"] },
            { ["--list", "flat", "@response.rsp", "--quick", "bdn", "--body", "abc"] },
        };

    [Theory]
    [MemberData(nameof(BdnArguments))]
    public async Task Bdn_hands_every_argument_after_it_to_BenchmarkDotNet_as_given(string[] rest)
    {
        string[]? handed = null;
        var output = new StringWriter();
        var error = new StringWriter();
        int code = await HarnessBenchmarks
            .RunAsync(["bdn", .. rest], output, error, args =>
            {
                handed = args;
                return 7;
            })
            .WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(7, code);
        Assert.Equal(rest, handed);
        Assert.Equal("", error.ToString());
        Assert.Equal("", output.ToString());
    }

    private static async Task<(int Code, string Output, string Error)> RunAsync(string program, string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        Task<int> run = program switch
        {
            FakeBroker => FakeBrokerBenchmarks.RunAsync(args, output, error),
            Harness => HarnessBenchmarks.RunAsync(args, output, error, _ =>
                throw new InvalidOperationException("bdn must not run here")
            ),
            Properties => PropertiesBenchmarks.RunAsync(args, output, error),
            _ => throw new ArgumentOutOfRangeException(nameof(program), program, null),
        };
        // Input that wrongly parses would start a benchmark: fail here instead of waiting for it.
        int code = await run.WaitAsync(TimeSpan.FromSeconds(30));
        return (code, output.ToString(), error.ToString());
    }

    private static string ProgramName(string program) =>
        program switch
        {
            FakeBroker => FakeBrokerBenchmarks.Name,
            Harness => HarnessBenchmarks.Name,
            _ => PropertiesBenchmarks.Name,
        };
}
