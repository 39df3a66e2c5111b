using System.CommandLine;
using System.Globalization;
using System.Net;
using AmqpConformance.Benchmarks;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// What the <c>race</c> mode measures, from its command line (<see cref="CreateCommand"/>): <c>--sizes
/// 256,65536,1048576 --connections 1,4 --megabytes 128 --max-messages 200000 --window 1000 --window-megabytes 16
/// --warmup 100 --rabbitmq 127.0.0.1:5672 --trace-allocations</c> (the last one a flag, with no value).
/// <c>--rabbitmq</c> takes host:port, an amqp://user:password@host:port/vhost URI, or <c>none</c> (fake broker only);
/// without it the RABBITMQ_URL environment variable (same forms), else 127.0.0.1:5672 as guest/guest on "/".
/// </summary>
internal sealed record RaceOptions
{
    /// <summary>Body sizes, one row group each.</summary>
    public IReadOnlyList<int> Sizes { get; init; } = [256, 64 * 1024, 1024 * 1024];

    /// <summary>Connection counts; each connection publishes on its own channel, all at once.</summary>
    public IReadOnlyList<int> Connections { get; init; } = [1, 4];

    /// <summary>Body bytes per measurement (over all its connections), in MB (10^6 bytes).</summary>
    public int Megabytes { get; init; } = 128;

    /// <summary>The most messages per measurement, so that small bodies do not take minutes against RabbitMQ.</summary>
    public int MaxMessages { get; init; } = 200_000;

    /// <summary>Whether to sample what the fake broker's cells allocate, by type
    /// (<see cref="AllocationSampler"/>).</summary>
    public bool TraceAllocations { get; init; }

    /// <summary>The most unconfirmed publishes per connection.</summary>
    public int Window { get; init; } = 1000;

    /// <summary>The most unconfirmed body bytes per connection, in MB; lowers <see cref="Window"/> for large
    /// bodies.</summary>
    public int WindowMegabytes { get; init; } = 16;

    /// <summary>The unprinted warm-up before each contestant's cells of a body size, in percent of a cell's messages
    /// (one connection, at least two windows). A whole cell by default: JIT tiering needs more than a fraction of a
    /// second of traffic, and the fake broker's body pool holds what the previous queue gave back, so only a warm-up as
    /// large as a cell measures its steady state (RabbitMQ's long-running VM is warm already). The old default was an
    /// eighth (12).</summary>
    public int WarmupPercent { get; init; } = 100;

    /// <summary>The warm-up's messages for <paramref name="bodySize"/> with a window of
    /// <paramref name="window"/>.</summary>
    public int WarmupMessages(int bodySize, int window) =>
        (int)Math.Max(2L * window, (long)MessagesPerCell(bodySize) * WarmupPercent / 100);

    /// <summary>RabbitMQ's address, or null to measure the fake broker alone.</summary>
    public EndPoint? RabbitMq { get; init; } = new IPEndPoint(IPAddress.Loopback, 5672);

    /// <summary>How RabbitMQ is addressed, for the printout.</summary>
    public string RabbitMqText { get; init; } = "127.0.0.1:5672";

    /// <summary>Credentials and vhost for RabbitMQ (guest/guest on "/" unless the URI says otherwise).</summary>
    public TestPeerHandshake RabbitMqHandshake { get; init; } = TestPeerHandshake.Default;

    /// <summary>The messages one measurement of <paramref name="bodySize"/> publishes in all.</summary>
    public int MessagesPerCell(int bodySize) => (int)Math.Clamp(Megabytes * 1_000_000L / bodySize, 1, MaxMessages);

    /// <summary>The window for <paramref name="bodySize"/>: <see cref="Window"/>, lowered to fit
    /// <see cref="WindowMegabytes"/>.</summary>
    public int WindowFor(int bodySize) => (int)Math.Clamp(WindowMegabytes * 1_000_000L / bodySize, 1, Window);

    /// <summary>The <c>race</c> subcommand: its options, checked as they parse, make a <see cref="RaceOptions"/> for
    /// <see cref="RaceBenchmark.RunAsync"/>. <paramref name="rabbitMqUrl"/> is the RABBITMQ_URL environment variable,
    /// used when <c>--rabbitmq</c> is not given (a bad one is a parse error too).</summary>
    public static Command CreateCommand(string? rabbitMqUrl)
    {
        var defaults = new RaceOptions();
        var sizes = BenchCommandLine.Numbers(
            "--sizes",
            "Body sizes in bytes, one row group each.",
            [.. defaults.Sizes],
            1,
            128 * 1024 * 1024
        );
        var connections = BenchCommandLine.Numbers(
            "--connections",
            "Connection counts; each connection publishes on its own channel, all at once.",
            [.. defaults.Connections],
            1,
            64
        );
        var megabytes = BenchCommandLine.Number(
            "--megabytes",
            "Body MB (10^6 bytes) per measurement, over all its connections.",
            defaults.Megabytes,
            1,
            100_000
        );
        var maxMessages = BenchCommandLine.Number(
            "--max-messages",
            "The most messages per measurement.",
            defaults.MaxMessages,
            1,
            100_000_000
        );
        var window = BenchCommandLine.Number(
            "--window",
            "The most unconfirmed publishes per connection.",
            defaults.Window,
            1,
            1_000_000
        );
        var windowMegabytes = BenchCommandLine.Number(
            "--window-megabytes",
            "The most unconfirmed body MB per connection; lowers --window for large bodies.",
            defaults.WindowMegabytes,
            1,
            4096
        );
        var warmup = BenchCommandLine.Number(
            "--warmup",
            "The unprinted warm-up before each contestant's cells of a body size, in percent of a cell's messages.",
            defaults.WarmupPercent,
            1,
            1000
        );
        var rabbitMq = new Option<string>("--rabbitmq")
        {
            Description =
                "RabbitMQ's address: host:port, amqp://user:password@host:port/vhost, or none (fake broker and sink only). "
                + "Default: the RABBITMQ_URL environment variable (same forms), else 127.0.0.1:5672 as guest/guest on \"/\".",
            HelpName = "host:port|amqp://user:pass@host:port/vhost|none",
            CustomParser = result =>
            {
                string text = result.Tokens[0].Value;
                if (Check(text, "--rabbitmq") is { } error)
                    result.AddError(error);
                return text;
            },
        };
        var traceAllocations = new Option<bool>("--trace-allocations")
        {
            Description = "Sample what the fake broker's cells allocate, by type.",
        };
        var command = new Command(
            "race",
            "The fake broker against a local RabbitMQ and a confirming sink (the ceiling), with the same confirm-mode publisher: msg/s, MB/s and "
                + "the ratios; goals fake >= 10x RabbitMQ at 256 B, >= 3x at 1 MiB. When RabbitMQ does not answer it measures the others alone."
        )
        {
            sizes,
            connections,
            megabytes,
            maxMessages,
            window,
            windowMegabytes,
            warmup,
            rabbitMq,
            traceAllocations,
        };
        command.Validators.Add(result =>
        {
            if (
                result.GetResult(rabbitMq) is null
                && !string.IsNullOrEmpty(rabbitMqUrl)
                && Check(rabbitMqUrl, "RABBITMQ_URL") is { } error
            )
                result.AddError(error);
        });
        command.SetAction(parse =>
        {
            var options = new RaceOptions
            {
                Sizes = [.. parse.GetValue(sizes)!.Distinct()],
                Connections = [.. parse.GetValue(connections)!.Distinct()],
                Megabytes = parse.GetValue(megabytes),
                MaxMessages = parse.GetValue(maxMessages),
                Window = parse.GetValue(window),
                WindowMegabytes = parse.GetValue(windowMegabytes),
                WarmupPercent = parse.GetValue(warmup),
                TraceAllocations = parse.GetValue(traceAllocations),
            };
            if (parse.GetValue(rabbitMq) is { } address)
                options = options.WithRabbitMq(address, "--rabbitmq");
            else if (!string.IsNullOrEmpty(rabbitMqUrl))
                options = options.WithRabbitMq(rabbitMqUrl, "RABBITMQ_URL");
            return RaceBenchmark.RunAsync(options);
        });
        return command;
    }

    /// <summary>Why <paramref name="value"/> (from <paramref name="source"/>) is no RabbitMQ address, or null when it
    /// is one.</summary>
    private static string? Check(string value, string source)
    {
        try
        {
            _ = new RaceOptions().WithRabbitMq(value, source);
            return null;
        }
        catch (FormatException e)
        {
            return e.Message;
        }
    }

    private RaceOptions WithRabbitMq(string value, string source)
    {
        if (value == "none")
            return this with { RabbitMq = null, RabbitMqText = "none" };
        TestPeerHandshake handshake = TestPeerHandshake.Default;
        string host;
        int port;
        if (value.StartsWith("amqp://", StringComparison.OrdinalIgnoreCase))
        {
            if (!Uri.TryCreate(value, UriKind.Absolute, out Uri? uri) || uri.Host.Length == 0)
                throw new FormatException($"{source}: '{value}' is not an amqp:// URI");
            host = uri.Host.Trim('[', ']');
            port = uri.IsDefaultPort || uri.Port < 0 ? 5672 : uri.Port;
            if (uri.UserInfo.Length > 0)
            {
                string[] parts = uri.UserInfo.Split(':', 2);
                handshake = handshake with
                {
                    User = Uri.UnescapeDataString(parts[0]),
                    Password = parts.Length > 1 ? Uri.UnescapeDataString(parts[1]) : "",
                };
            }
            // No path or "/" is the default vhost "/"; otherwise the path after its first slash, unescaped ("%2F" is
            // "/").
            string path = uri.AbsolutePath;
            if (path.Length > 1)
                handshake = handshake with { VirtualHost = Uri.UnescapeDataString(path[1..]) };
        }
        else
        {
            int colon = value.LastIndexOf(':');
            if (colon <= 0)
                throw new FormatException($"{source}: '{value}' is not host:port, an amqp:// URI or none");
            host = value[..colon].Trim('[', ']');
            port = Number(value[(colon + 1)..], source, 1, 65535);
        }
        EndPoint endpoint = IPAddress.TryParse(host, out IPAddress? address)
            ? new IPEndPoint(address, port)
            : new DnsEndPoint(host, port);
        return this with
        {
            RabbitMq = endpoint,
            RabbitMqText = $"{host}:{port.ToString(CultureInfo.InvariantCulture)}",
            RabbitMqHandshake = handshake,
        };
    }

    private static int Number(string text, string option, int min, int max) =>
        int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n >= min && n <= max
            ? n
            : throw new FormatException($"{option}: '{text}' is not a whole number from {min} to {max}");
}
