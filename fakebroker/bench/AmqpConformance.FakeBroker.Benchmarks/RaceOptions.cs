using System.Globalization;
using System.Net;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// What the <c>race</c> mode measures, from its command line: <c>--sizes 256,65536,1048576 --connections 1,4
/// --megabytes 128 --max-messages 200000 --window 1000 --window-megabytes 16 --warmup 100 --rabbitmq 127.0.0.1:5672
/// --trace-allocations</c> (the last one a flag, with no value).
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

    /// <summary>Whether to sample what the fake broker's cells allocate, by type (<see cref="AllocationSampler"/>).</summary>
    public bool TraceAllocations { get; init; }

    /// <summary>The most unconfirmed publishes per connection.</summary>
    public int Window { get; init; } = 1000;

    /// <summary>The most unconfirmed body bytes per connection, in MB; lowers <see cref="Window"/> for large bodies.</summary>
    public int WindowMegabytes { get; init; } = 16;

    /// <summary>The unprinted warm-up before each contestant's cells of a body size, in percent of a cell's messages (one
    /// connection, at least two windows). A whole cell by default: JIT tiering needs more than a fraction of a second of
    /// traffic, and the fake broker's body pool holds what the previous queue gave back, so only a warm-up as large as a
    /// cell measures its steady state (RabbitMQ's long-running VM is warm already). The old default was an eighth (12).</summary>
    public int WarmupPercent { get; init; } = 100;

    /// <summary>The warm-up's messages for <paramref name="bodySize"/> with a window of <paramref name="window"/>.</summary>
    public int WarmupMessages(int bodySize, int window) =>
        (int)Math.Max(2L * window, (long)MessagesPerCell(bodySize) * WarmupPercent / 100);

    /// <summary>RabbitMQ's address, or null to measure the fake broker alone.</summary>
    public EndPoint? RabbitMq { get; init; } = new IPEndPoint(IPAddress.Loopback, 5672);

    /// <summary>How RabbitMQ is addressed, for the printout.</summary>
    public string RabbitMqText { get; init; } = "127.0.0.1:5672";

    /// <summary>Credentials and vhost for RabbitMQ (guest/guest on "/" unless the URI says otherwise).</summary>
    public ClientHandshake RabbitMqHandshake { get; init; } = ClientHandshake.Default;

    /// <summary>The messages one measurement of <paramref name="bodySize"/> publishes in all.</summary>
    public int MessagesPerCell(int bodySize) =>
        (int)Math.Clamp(Megabytes * 1_000_000L / bodySize, 1, MaxMessages);

    /// <summary>The window for <paramref name="bodySize"/>: <see cref="Window"/>, lowered to fit <see cref="WindowMegabytes"/>.</summary>
    public int WindowFor(int bodySize) => (int)Math.Clamp(WindowMegabytes * 1_000_000L / bodySize, 1, Window);

    private const string Usage = "use --sizes 256,65536,1048576 --connections 1,4 --megabytes 128 --max-messages 200000 " +
                                 "--window 1000 --window-megabytes 16 --warmup 100 --rabbitmq host:port|amqp://user:pass@host:port/vhost|none --trace-allocations";

    /// <summary>Parses the arguments after <c>race</c>; null with a one-line <paramref name="error"/> when they are wrong.</summary>
    public static RaceOptions? Parse(string[] args, string? rabbitMqUrl, out string? error)
    {
        var options = new RaceOptions();
        error = null;
        try
        {
            if (!string.IsNullOrEmpty(rabbitMqUrl)) options = options.WithRabbitMq(rabbitMqUrl, "RABBITMQ_URL");
            for (int i = 0; i < args.Length; i += 2)
            {
                if (args[i] == "--trace-allocations")
                {
                    options = options with { TraceAllocations = true };
                    i--;
                    continue;
                }
                if (i + 1 >= args.Length) throw new FormatException($"{args[i]} needs a value ({Usage})");
                string value = args[i + 1];
                options = args[i] switch
                {
                    "--sizes" => options with { Sizes = List(value, args[i], 1, 128 * 1024 * 1024) },
                    "--connections" => options with { Connections = List(value, args[i], 1, 64) },
                    "--megabytes" => options with { Megabytes = Number(value, args[i], 1, 100_000) },
                    "--max-messages" => options with { MaxMessages = Number(value, args[i], 1, 100_000_000) },
                    "--window" => options with { Window = Number(value, args[i], 1, 1_000_000) },
                    "--window-megabytes" => options with { WindowMegabytes = Number(value, args[i], 1, 4096) },
                    "--warmup" => options with { WarmupPercent = Number(value, args[i], 1, 1000) },
                    "--rabbitmq" => options.WithRabbitMq(value, "--rabbitmq"),
                    _ => throw new FormatException($"unknown option {args[i]} ({Usage})"),
                };
            }
            return options;
        }
        catch (FormatException e)
        {
            error = e.Message;
            return null;
        }
    }

    private RaceOptions WithRabbitMq(string value, string source)
    {
        if (value == "none") return this with { RabbitMq = null, RabbitMqText = "none" };
        ClientHandshake handshake = ClientHandshake.Default;
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
                handshake = handshake with { User = Uri.UnescapeDataString(parts[0]), Password = parts.Length > 1 ? Uri.UnescapeDataString(parts[1]) : "" };
            }
            // No path or "/" is the default vhost "/"; otherwise the path after its first slash, unescaped ("%2F" is "/").
            string path = uri.AbsolutePath;
            if (path.Length > 1) handshake = handshake with { VirtualHost = Uri.UnescapeDataString(path[1..]) };
        }
        else
        {
            int colon = value.LastIndexOf(':');
            if (colon <= 0) throw new FormatException($"{source}: '{value}' is not host:port, an amqp:// URI or none");
            host = value[..colon].Trim('[', ']');
            port = Number(value[(colon + 1)..], source, 1, 65535);
        }
        EndPoint endpoint = IPAddress.TryParse(host, out IPAddress? address) ? new IPEndPoint(address, port) : new DnsEndPoint(host, port);
        return this with { RabbitMq = endpoint, RabbitMqText = $"{host}:{port.ToString(CultureInfo.InvariantCulture)}", RabbitMqHandshake = handshake };
    }

    private static int Number(string text, string option, int min, int max) =>
        int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n >= min && n <= max ? n
            : throw new FormatException($"{option}: '{text}' is not a whole number from {min} to {max}");

    private static int[] List(string text, string option, int min, int max) =>
        [.. text.Split(',').Select(part => Number(part.Trim(), option, min, max)).Distinct()];
}
