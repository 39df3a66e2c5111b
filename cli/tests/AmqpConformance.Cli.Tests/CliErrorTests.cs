using System.Net;
using System.Net.Sockets;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Cli.Tests;

/// <summary>
/// Every way amqp-conformance refuses its input: one line on standard error that says what is wrong (naming the option,
/// file or address), nothing on standard output, exit code 2, and nothing run. Parse and validation errors
/// (System.CommandLine's) and the commands' own checks alike.
/// </summary>
public sealed class CliErrorTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("amqpc-cli-errors-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    /// <summary>A FrameWriterFactory the CLI cannot make: no parameterless constructor.</summary>
    public sealed class FactoryNeedingArguments(int frameMax) : FrameWriterFactory
    {
        public override string Name => "NeedsArguments" + frameMax;

        public override IFrameWriter CreateWriter(WriterContext context) => throw new NotSupportedException();
    }

    private static string TestAssembly => typeof(CliErrorTests).Assembly.Location;

    private static string TempFolder => Path.TrimEndingDirectorySeparator(Path.GetTempPath());

    /// <summary>Arguments, and what the one line must contain.</summary>
    public static TheoryData<string[], string> ParseAndValidationErrors() =>
        new()
        {
            { [], "Required command was not provided" },
            { ["frobnicate"], "frobnicate" },
            { ["broker", "--no-such-option"], "--no-such-option" },
            { ["broker", "--port", "abc"], "abc" },
            { ["broker", "--port", "70000"], "--port must be 0-65535" },
            { ["broker", "--frame-max", "100"], "--frame-max 100 is below the AMQP minimum 4096" },
            { ["broker", "--heartbeat", "70000"], "--heartbeat must be 0-65535" },
            { ["broker", "--user", "guest"], "--user \"guest\" is not name:password" },
            { ["broker", "--strictness", "lax"], "lax" },
            { ["proxy", "--upstream", "127.0.0.1:5672"], "--listen" },
            { ["proxy", "--listen", "127.0.0.1:0"], "--upstream" },
            { ["run", "--cases", "5"], "--writer" },
            { ["run", "--writer", "inline", "--cases", "many"], "many" },
            { ["fuzz"], "target" },
            { ["fuzz", "everything"], "everything" },
            { ["fuzz", "broker", "--frames", "0"], "--frames must be at least 1" },
            { ["fuzz", "proxy-api", "--requests", "0"], "--requests must be at least 1" },
            { ["fuzz", "broker", "--seconds", "0"], "--seconds must be positive" },
            { ["fuzz", "broker", "--parallel", "0"], "--parallel must be at least 1" },
            // Values that do not convert: the parser's own error, not a validator's exception (which would abort the
            // process with exit 134).
            { ["fuzz", "broker", "--seconds", "abc"], "abc" },
            { ["fuzz", "broker", "--frames", "abc"], "abc" },
            { ["fuzz", "proxy-api", "--requests", "abc"], "abc" },
            { ["fuzz", "broker", "--parallel", "abc"], "abc" },
            { ["fuzz", "broker", "--seed", "abc"], "System.Int32" },
            { ["fuzz", "broker", "--seconds", "1e999"], "--seconds must be positive and at most 604800" },
            { ["broker", "--frame-max", "abc"], "abc" },
            { ["broker", "--heartbeat", "abc"], "abc" },
        };

    /// <summary>Arguments that parse, and what the command's own check must say.</summary>
    public static TheoryData<string[], string> CommandErrors() =>
        new()
        {
            { ["run", "--writer", "custom"], "--writer custom: unknown writer" },
            { ["run", "--writer", "inline", "--cases", "0"], "--cases 0: must be at least 1" },
            { ["run", "--writer", "inline", "--soak", "10x"], "--soak 10x: expected a positive duration" },
            { ["run", "--writer", "inline", "--soak", "0s"], "--soak 0s: expected a positive duration" },
            { ["run", "--writer", "inline", "--soak", "-5m"], "--soak -5m: expected a positive duration" },
            { ["run", "--writer", "/no/such/Writers.dll:My.Factory"], "cannot load assembly" },
            {
                ["run", "--writer", $"{TestAssembly}:AmqpConformance.Cli.Tests.CliErrorTests"],
                "is not a concrete FrameWriterFactory"
            },
            {
                ["run", "--writer", $"{TestAssembly}:AmqpConformance.Cli.Tests.CliErrorTests+FactoryNeedingArguments"],
                "no public parameterless constructor"
            },
            { ["run", "--writer", "inline", "--invariant", "speed"], "--invariant speed: unknown" },
            { ["run", "--writer", "inline", "--replay", "not-a-token"], "--replay" },
            { ["run", "--writer", "inline", "--parallel", "0"], "--parallel 0: expected a number of processes" },
            { ["run", "--writer", "inline", "--parallel", "many"], "--parallel many: expected a number" },
            // --parallel runs a --shard's cases in parts (ParallelRunTests), but still not without a seed or a replay.
            { ["run", "--writer", "inline", "--parallel", "2", "--shard", "1/2"], "--shard 1/2: needs --seed too" },
            {
                ["run", "--writer", "inline", "--parallel", "2", "--seed", "1", "--shard", "1/2", "--replay", "1,2,3"],
                "--parallel 2: a replay runs one case; drop --parallel."
            },
            { ["run", "--writer", "inline", "--parallel", "2", "--seed", "1", "--shard", "3/2"], "--shard: " },
            { ["run", "--writer", "inline", "--parallel", "2", "--replay", "1,2,3"], "a replay runs one case" },
            { ["run", "--writer", "inline", "--parallel", "auto", "--soak", "1m"], "--parallel auto: a soak" },
            { ["run", "--writer", "Zoo:NoSuchWriter"], "Zoo:NoSuchWriter" },
            {
                ["run", "--writer", "inline", "--json", Path.Combine(TestAssembly, "results.json")],
                $"--json {Path.Combine(TestAssembly, "results.json")}: "
            },
            { ["run", "--writer", "inline", "--json", TempFolder], $"--json {TempFolder}: is a folder" },
            {
                ["run", "--writer", "inline", "--junit", Path.Combine(TestAssembly, "results.xml")],
                $"--junit {Path.Combine(TestAssembly, "results.xml")}: "
            },
            { ["run", "--writer", "inline", "--junit", TempFolder], $"--junit {TempFolder}: is a folder" },
            { ["selftest", "--cases", "0"], "--cases 0: must be at least 1" },
            { ["selftest", "--replays", "-1"], "--replays -1: must be 0 or more" },
            { ["selftest", "--writer", "NoSuchWriter"], "--writer NoSuchWriter: no zoo writer" },
            {
                ["broker", "--port", "0", "--record", "/no/such/folder/frames.jsonl"],
                "--record /no/such/folder/frames.jsonl"
            },
            {
                ["broker", "--port", "0", "--pcap", "/no/such/folder/frames.pcap"],
                "--pcap /no/such/folder/frames.pcap"
            },
            {
                ["proxy", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:5672", "--api", "10.1.2.3:8474"],
                "--api 10.1.2.3:8474: expected a loopback address"
            },
            {
                ["proxy", "--listen", "10.1.2.3:25672", "--upstream", "127.0.0.1:5672", "--api", "127.0.0.1:0"],
                "10.1.2.3:25672"
            },
            {
                ["proxy", "--listen", "127.0.0.1:0", "--upstream", "no-port-here", "--api", "127.0.0.1:0"],
                "no-port-here"
            },
            {
                [
                    "proxy",
                    "--listen",
                    "127.0.0.1:0",
                    "--upstream",
                    "127.0.0.1:5672",
                    "--api",
                    "127.0.0.1:0",
                    "--plan",
                    "/no/such/plan.json",
                ],
                "--plan /no/such/plan.json"
            },
        };

    [Theory]
    [MemberData(nameof(ParseAndValidationErrors))]
    [MemberData(nameof(CommandErrors))]
    public async Task Bad_input_is_one_line_and_exit_code_2(string[] args, string expected) =>
        await AssertRefusedAsync(args, expected);

    [Fact]
    public async Task A_fault_plan_that_does_not_parse_is_one_line_and_exit_code_2()
    {
        string plan = Path.Combine(_dir, "plan.json");
        await File.WriteAllTextAsync(plan, "{\"seed\":1,\"faults\":[{\"type\":\"gremlin\"}]}");
        await AssertRefusedAsync(
            [
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "--upstream",
                "127.0.0.1:5672",
                "--api",
                "127.0.0.1:0",
                "--plan",
                plan,
            ],
            $"--plan {plan}"
        );
    }

    [Fact]
    public async Task A_junit_file_merge_cannot_write_is_one_line_and_exit_code_2_before_the_table()
    {
        string results = Path.Combine(_dir, "run.json");
        await File.WriteAllTextAsync(
            results,
            "{\"seed\":1,\"casesPerProperty\":1,\"writers\":[{\"name\":\"Inline\",\"properties\":[{\"property\":\"order\",\"holds\":true,\"cases\":1}]}]}"
        );
        await AssertRefusedAsync(["merge", results, "--junit", _dir], $"--junit {_dir}: is a folder");
        string underAFile = Path.Combine(results, "junit.xml");
        await AssertRefusedAsync(["merge", results, "--junit", underAFile], $"--junit {underAFile}: ");
    }

    [Fact]
    public async Task Ports_in_use_are_one_line_naming_the_address_and_exit_code_2()
    {
        using var busy = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        busy.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        busy.Listen();
        string address = busy.LocalEndPoint!.ToString()!;
        string port = ((IPEndPoint)busy.LocalEndPoint).Port.ToString(System.Globalization.CultureInfo.InvariantCulture);

        await AssertRefusedAsync(["broker", "--port", port], $"broker: cannot listen on {address}");
        await AssertRefusedAsync(
            ["proxy", "--listen", address, "--upstream", "127.0.0.1:5672", "--api", "127.0.0.1:0"],
            address
        );
        await AssertRefusedAsync(
            ["proxy", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:5672", "--api", address],
            $"--api {address}: cannot listen"
        );
    }

    [Fact]
    public void One_line_joins_the_lines_of_a_multi_line_message()
    {
        Assert.Equal("a b c", CliApplication.OneLine("a\r\nb\n  c\n"));
    }

    private static async Task AssertRefusedAsync(string[] args, string expected)
    {
        var outputText = new StringWriter();
        var errorText = new StringWriter();
        TextWriter output = TextWriter.Synchronized(outputText),
            error = TextWriter.Synchronized(errorText);
        // A command that wrongly starts is stopped here, and then fails the exit-code assertion instead of hanging.
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        int code = await CliApplication.RunAsync(args, output, error, timeout.Token);
        string said = errorText.ToString();
        string[] lines = said.EndsWith('\n') ? said[..^1].Split('\n') : said.Split('\n'); // blank lines count
        Assert.True(code == 2, $"exit code {code} for {string.Join(' ', args)}; stderr: {said}; stdout: {outputText}");
        Assert.True(lines.Length == 1, $"expected one line for {string.Join(' ', args)}, got:\n{said}");
        Assert.True(lines[0].Contains(expected, StringComparison.Ordinal), $"\"{expected}\" is not in: {lines[0]}");
        Assert.Equal("", outputText.ToString());
    }
}
