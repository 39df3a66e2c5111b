using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using System.Text.RegularExpressions;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests.Logging;

/// <summary><c>broker</c>'s and <c>proxy</c>'s <c>--log-level</c> and <c>--log-format</c>, run in process: a console
/// that stops reading never stalls a connection or the stop, the level filters, json lines parse, bad values are one
/// line and exit 2.</summary>
public sealed partial class BrokerLoggingTests(ITestOutputHelper output)
{
    [GeneratedRegex(@"listening on 127\.0\.0\.1:(\d+)")]
    private static partial Regex ListeningLine();

    private static readonly byte[] ProtocolHeader = "AMQP\0\0\u0009\u0001"u8.ToArray();

    [Fact]
    public async Task A_stalled_console_neither_stops_connections_being_served_nor_hangs_the_stop()
    {
        const int Cycles = 1_000;
        var stalled = new StalledOutputWriter(capacity: 4096); // a pipe whose reader read the first 4 KB, then stopped
        var error = new ConcurrentStringWriter();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token);
        Task<int> running = CliApplication.RunAsync(
            ["broker", "--port", "0", "--heartbeat", "0"],
            stalled,
            error,
            stop.Token
        );
        try
        {
            int port = await WaitForPortAsync(() => stalled.Text, running, timeout.Token);
            var watch = Stopwatch.StartNew();
            for (int i = 0; i < Cycles; i++)
                await ConnectReadStartAndCloseAsync(port, timeout.Token); // throws if the broker stopped serving
            output.WriteLine(
                $"{Cycles} connect/close cycles in {watch.ElapsedMilliseconds} ms; output stalled: {stalled.Stalled}"
            );
            Assert.True(stalled.Stalled, "the output never filled, so the test proved nothing: " + stalled.Text.Length);

            // Each cycle logged two lines that could not be written; stopping must not wait for the stalled output.
            watch.Restart();
            stop.Cancel();
            int code = await running.WaitAsync(TimeSpan.FromSeconds(15), timeout.Token);
            output.WriteLine($"stopped in {watch.ElapsedMilliseconds} ms; stderr: {error.Text}");
            Assert.Equal(ExitCodes.Ok, code);
            Assert.Matches(@"^broker: \d+ log line\(s\) not written: the output did not keep up\s*$", error.Text);
        }
        finally
        {
            stalled.Release();
            stop.Cancel();
        }
    }

    [Fact]
    public async Task Json_lines_parse_and_the_level_filters()
    {
        var text = new ConcurrentStringWriter();
        var error = new ConcurrentStringWriter();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token);
        Task<int> running = CliApplication.RunAsync(
            ["broker", "--port", "0", "--heartbeat", "0", "--log-level", "warning", "--log-format", "json"],
            text,
            error,
            stop.Token
        );
        int port = await WaitForPortAsync(() => text.Text, running, timeout.Token);

        await ConnectReadStartAndCloseAsync(port, timeout.Token); // Information only: filtered out
        using (var client = new TcpClient())
        {
            await client.ConnectAsync(IPAddress.Loopback, port, timeout.Token);
            NetworkStream stream = client.GetStream();
            await stream.WriteAsync(ProtocolHeader, timeout.Token);
            await ReadMethodFrameAsync(stream, timeout.Token);
            // A method frame whose frame-end octet is 0x00: 501 bad-frame-end, which the broker logs at Warning.
            await stream.WriteAsync(new byte[] { 1, 0, 0, 0, 0, 0, 4, 0, 10, 0, 11, 0 }, timeout.Token);
            while (!text.Text.Contains("ProtocolViolation", StringComparison.Ordinal))
                await Task.Delay(20, timeout.Token);
        }
        stop.Cancel();
        Assert.Equal(ExitCodes.Ok, await running.WaitAsync(timeout.Token));
        Assert.Equal("", error.Text);

        string[] lines = text.Text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        output.WriteLine(string.Join('\n', lines));
        var entries = lines.Select(l => JsonDocument.Parse(l).RootElement).ToList();
        foreach (JsonElement entry in entries)
        {
            Assert.True(DateTimeOffset.TryParse(entry.GetProperty("timestamp").GetString(), out _));
            Assert.NotEmpty(entry.GetProperty("category").GetString()!);
            Assert.True(entry.GetProperty("eventId").GetInt32() > 0);
            Assert.NotEmpty(entry.GetProperty("eventName").GetString()!);
            Assert.NotEmpty(entry.GetProperty("message").GetString()!);
            Assert.Equal(JsonValueKind.Object, entry.GetProperty("state").ValueKind);
        }
        // The start-up lines always come (they carry the port); below them nothing under Warning does.
        Assert.Equal(
            ["BrokerListening", "BrokerSettings"],
            entries.Take(2).Select(e => e.GetProperty("eventName").GetString())
        );
        Assert.All(entries.Skip(2), e =>
            Assert.Contains(e.GetProperty("level").GetString(), new[] { "Warning", "Error", "Critical" })
        );
        JsonElement violation = Assert.Single(entries, e =>
            e.GetProperty("eventName").GetString() == "ProtocolViolation"
        );
        Assert.Equal("AmqpConformance.FakeBroker", violation.GetProperty("category").GetString());
        Assert.Equal("Warning", violation.GetProperty("level").GetString());
        Assert.Equal(2, violation.GetProperty("state").GetProperty("ConnectionId").GetInt64());
        Assert.Equal(501, violation.GetProperty("state").GetProperty("ReplyCode").GetInt32());
        Assert.Equal("bad-frame-end", violation.GetProperty("state").GetProperty("Rule").GetString());
        Assert.DoesNotContain(entries, e =>
            e.GetProperty("eventName").GetString() is "ConnectionAccepted" or "ConnectionClosed" or "BrokerStopped"
        );
    }

    [Fact]
    public async Task Text_at_the_default_level_shows_each_connection_and_the_stop()
    {
        var text = new ConcurrentStringWriter();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token);
        Task<int> running = CliApplication.RunAsync(
            ["broker", "--port", "0", "--heartbeat", "0"],
            text,
            text,
            stop.Token
        );
        int port = await WaitForPortAsync(() => text.Text, running, timeout.Token);
        await ConnectReadStartAndCloseAsync(port, timeout.Token);
        while (!text.Text.Contains("connection 1: closed (", StringComparison.Ordinal))
            await Task.Delay(20, timeout.Token);
        stop.Cancel();
        Assert.Equal(ExitCodes.Ok, await running.WaitAsync(timeout.Token));
        output.WriteLine(text.Text);
        Assert.Matches(@"\d\d:\d\d:\d\d\.\d{3} info connection 1: accepted from 127\.0\.0\.1:\d+", text.Text);
        Assert.Contains("info stopped: 1 connection(s)", text.Text);
        Assert.DoesNotContain("dbug", text.Text);
        Assert.DoesNotContain("{", text.Text);
    }

    [Theory]
    [InlineData("broker", "--log-level", "verbose")]
    [InlineData("broker", "--log-format", "xml")]
    [InlineData("proxy", "--log-level", "Info")]
    [InlineData("proxy", "--log-format", "yaml")]
    public async Task A_bad_log_option_is_one_line_and_exit_code_2(string command, string option, string value)
    {
        string[] args =
            command == "broker"
                ? ["broker", "--port", "0", option, value]
                : ["proxy", "--listen", "127.0.0.1:0", "--upstream", "127.0.0.1:5672", option, value];
        var text = new StringWriter();
        var error = new StringWriter();
        int code = await CliApplication.RunAsync(args, text, error);
        Assert.Equal(ExitCodes.BadInput, code);
        string line = Assert.Single(error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"amqp-conformance {command}: ", line, StringComparison.Ordinal);
        Assert.Contains(value, line, StringComparison.Ordinal);
        Assert.Equal("", text.ToString());
    }

    private static async Task<int> WaitForPortAsync(Func<string> text, Task<int> running, CancellationToken ct)
    {
        while (true)
        {
            Match match = ListeningLine().Match(text());
            if (match.Success)
                return int.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
            Assert.False(running.IsCompleted, "the broker ended early: " + text());
            await Task.Delay(20, ct);
        }
    }

    /// <summary>The least a client does to be served: the protocol header, then connection.start read back; then it
    /// closes.</summary>
    private static async Task ConnectReadStartAndCloseAsync(int port, CancellationToken ct)
    {
        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, port, ct);
        NetworkStream stream = client.GetStream();
        await stream.WriteAsync(ProtocolHeader, ct);
        byte[] method = await ReadMethodFrameAsync(stream, ct);
        Assert.Equal([0, 10, 0, 10], method[..4]); // connection.start
    }

    private static async Task<byte[]> ReadMethodFrameAsync(NetworkStream stream, CancellationToken ct)
    {
        byte[] header = new byte[7];
        await stream.ReadExactlyAsync(header, ct);
        Assert.Equal(1, header[0]); // a method frame
        int size = System.Buffers.Binary.BinaryPrimitives.ReadInt32BigEndian(header.AsSpan(3));
        byte[] payload = new byte[size + 1];
        await stream.ReadExactlyAsync(payload, ct);
        Assert.Equal(0xCE, payload[^1]);
        return payload[..^1];
    }
}
