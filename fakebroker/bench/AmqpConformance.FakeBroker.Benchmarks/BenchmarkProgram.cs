using System.CommandLine;
using AmqpConformance.Benchmarks;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// The fake broker's benchmark program as a callable: the default mode is broker ingest
/// (<see cref="IngestBenchmark"/>); the other modes are subcommands, each in its own file: <c>retention</c>
/// (<see cref="RetentionBenchmark"/>), <c>race</c> (<see cref="RaceBenchmark"/>), <c>inmemory</c>
/// (<see cref="InMemoryIngestBenchmark"/>) and <c>digest</c> (<see cref="DigestBenchmark"/>). Parsed with
/// System.CommandLine (<c>--help</c> on each); bad input is one line on standard error and exit code 2, and nothing
/// runs.
/// </summary>
public static class BenchmarkProgram
{
    /// <summary>The program's name as its errors and help name it.</summary>
    public const string Name = "AmqpConformance.FakeBroker.Benchmarks";

    /// <summary>Parses <paramref name="args"/> and runs the mode they name. Help and parse errors go to
    /// <paramref name="output"/> and <paramref name="error"/>; a benchmark prints its figures to the console. Returns
    /// the exit code: 2 after one line on <paramref name="error"/> when the arguments are wrong.</summary>
    public static Task<int> RunAsync(string[] args, TextWriter output, TextWriter error) =>
        BenchCommandLine.RunAsync(
            CreateRoot(Environment.GetEnvironmentVariable("RABBITMQ_URL")),
            Name,
            args,
            output,
            error
        );

    private static RootCommand CreateRoot(string? rabbitMqUrl)
    {
        var clients = BenchCommandLine.Numbers("--clients", "Client counts, each a row per body size.", [1, 4]);
        var megabytes = BenchCommandLine.Number(
            "--megabytes",
            "About how many MB each measurement writes (over all its clients).",
            256
        );
        var sizes = BenchCommandLine.Numbers("--sizes", "Body sizes in bytes.", [256, 1 << 20]);
        var rounds = BenchCommandLine.Number(
            "--rounds",
            "Measurements per cell (body size, client count), raw and fake alternately; goals are judged on each cell's median.",
            3
        );
        var retain = BenchCommandLine.OptionalNumber(
            "--retain",
            "Sets FrameLogOptions.MaxRetainedFrames: the log still records every frame but holds only the newest N in memory (default: every frame)."
        );
        var traceAllocations = new Option<bool>("--trace-allocations")
        {
            Description =
                "Sample the runtime's GC allocation ticks during each broker measurement and print the types that took the most bytes per message (one type per ~100 KB allocated).",
        };
        var root = new RootCommand(
            "Broker ingest (the default mode): pre-serialized basic.publish commands from raw TCP clients into a loopback sink that discards them and into "
                + "the fake broker; prints MB/s, msgs/s, fake/raw, GC pause share and allocation per message and frame, then one verdict per goal "
                + "(fake/raw >= 0.3 under 64 KiB, >= 0.7 above; <= 16 B allocated per frame; GC pauses < 5 %). Other modes are the commands below."
        )
        {
            clients,
            megabytes,
            sizes,
            rounds,
            retain,
            traceAllocations,
            RetentionCommand(),
            RaceOptions.CreateCommand(rabbitMqUrl),
            InMemoryCommand(),
            DigestCommand(),
        };
        root.SetAction(parse =>
            IngestBenchmark.RunAsync(
                new IngestOptions(
                    parse.GetValue(clients)!,
                    parse.GetValue(sizes)!,
                    parse.GetValue(megabytes),
                    parse.GetValue(retain),
                    parse.GetValue(rounds),
                    parse.GetValue(traceAllocations)
                )
            )
        );
        return root;
    }

    private static Command RetentionCommand()
    {
        var cycles = BenchCommandLine.Number("--cycles", "Measured connect/handshake/close cycles.", 10_000);
        var warmup = BenchCommandLine.Number(
            "--warmup",
            "Cycles before the first measurement, not measured.",
            500,
            min: 0
        );
        var parallel = BenchCommandLine.Number("--parallel", "Cycles at a time.", 4);
        var retention = new Option<string>("--retention")
        {
            Description =
                "The broker's connection retention: default, or unlimited (every connection kept, as before the retention budget).",
            DefaultValueFactory = _ => "default",
        };
        retention.AcceptOnlyFromAmong("default", "unlimited");
        var command = new Command(
            "retention",
            "Many short connections against one fake broker, to show that ended connections do not pile up: RSS and managed heap before "
                + "and after, failed cycles, 541 answers. Goal: no 541 and RSS within 32 MB of the start. Run it under a heap cap "
                + "(DOTNET_GCHeapHardLimit=0xC800000) to make a leak fail fast."
        )
        {
            cycles,
            warmup,
            parallel,
            retention,
        };
        command.SetAction(parse =>
            RetentionBenchmark.RunAsync(
                parse.GetValue(cycles),
                parse.GetValue(warmup),
                parse.GetValue(parallel),
                parse.GetValue(retention) == "unlimited" ? ConnectionRetention.Unlimited : ConnectionRetention.Default
            )
        );
        return command;
    }

    private static Command InMemoryCommand()
    {
        var size = BenchCommandLine.Number("--size", "Body size in bytes.", 256);
        var messages = BenchCommandLine.Number("--messages", "Messages per round.", 500_000);
        var rounds = BenchCommandLine.Number("--rounds", "Rounds, each on a new connection.", 4);
        var command = new Command(
            "inmemory",
            "The broker's receive path alone, single-threaded over in-memory pipes: wall and process CPU time per message; suits "
                + "counting instructions under valgrind --tool=callgrind (1 and 3 rounds, the difference over two rounds' messages)."
        )
        {
            size,
            messages,
            rounds,
        };
        command.SetAction(parse =>
            InMemoryIngestBenchmark.RunAsync(parse.GetValue(size), parse.GetValue(messages), parse.GetValue(rounds))
        );
        return command;
    }

    private static Command DigestCommand()
    {
        var rounds = BenchCommandLine.Number("--rounds", "Rounds per body size.", 3);
        var gigabytes = new Option<double>("--gigabytes")
        {
            Description = "About how many GB (10^9 bytes) each cell digests (at most 500).",
            HelpName = "GB",
            DefaultValueFactory = _ => 2,
            CustomParser = result =>
            {
                string text = result.Tokens[0].Value;
                if (
                    double.TryParse(
                        text,
                        System.Globalization.NumberStyles.Float,
                        System.Globalization.CultureInfo.InvariantCulture,
                        out double value
                    )
                    && value > 0
                    && value <= 500
                )
                    return value;
                result.AddError($"--gigabytes {text}: not a number of GB above 0 and at most 500");
                return 0;
            },
        };
        var command = new Command(
            "digest",
            "The frame log's body digest (XXH3) against XXH64, the digest before JSON Lines format 2, in GB/s: 256 B, 128 KiB and 1 MiB, "
                + "contiguous and in 64 KiB pieces."
        )
        {
            rounds,
            gigabytes,
        };
        command.SetAction(parse => DigestBenchmark.Run(parse.GetValue(rounds), parse.GetValue(gigabytes)));
        return command;
    }
}
