using System.Buffers;
using System.CommandLine;
using System.Diagnostics;
using System.Net.Sockets;
using System.Text.RegularExpressions;
using AmqpConformance.Harness.Client;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>amqp-conformance broker</c> run as a real process: it listens, records frames live, and on SIGINT stops
/// with everything flushed; bad options are refused.</summary>
public sealed partial class BrokerCommandTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData("broker --frame-max 100", "--frame-max 100 is below the AMQP minimum 4096")]
    [InlineData("broker --strictness lax", "lax")]
    [InlineData("broker --user nocolon", "is not name:password")]
    [InlineData("broker --port 70000", "--port must be 0-65535")]
    [InlineData("broker --heartbeat x", "x")]
    public void Bad_options_are_refused_with_a_message(string commandLine, string message)
    {
        var root = new RootCommand { BrokerCommand.Create() };
        ParseResult result = root.Parse(commandLine);
        Assert.NotEmpty(result.Errors);
        Assert.Contains(result.Errors, e => e.Message.Contains(message, StringComparison.Ordinal));
    }

    [Fact]
    public void Good_options_parse()
    {
        var root = new RootCommand { BrokerCommand.Create() };
        ParseResult result = root.Parse(
            "broker --port 0 --record a.jsonl --pcap a.pcap --frame-max 0 --heartbeat 5 --user a:b --user c:d:e --strictness rabbitmq --capture-bodies"
        );
        Assert.Empty(result.Errors);
    }

    [Theory]
    [InlineData("INT")]
    [InlineData("TERM")]
    public async Task Records_live_and_stops_on_a_signal_with_the_log_flushed(string signal)
    {
        string dir = Directory.CreateTempSubdirectory("amqpc-cli-broker-").FullName;
        string jsonl = Path.Combine(dir, "frames.jsonl"),
            pcap = Path.Combine(dir, "frames.pcap");
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        CancellationToken ct = timeout.Token;
        using var cli = RunningCli.Start([
            "broker",
            "--port",
            "0",
            "--record",
            jsonl,
            "--pcap",
            pcap,
            "--frame-max",
            "4096",
            "--heartbeat",
            "0",
        ]);
        try
        {
            int port = await ReadPortAsync(cli, ct);

            // Connection 1 publishes 10 000 bytes (3 body frames at frame_max 4096) and closes cleanly.
            await using (var first = await HarnessConnection.ConnectAsync("127.0.0.1", port, cancellationToken: ct))
            {
                var channel = await first.OpenChannelAsync(cancellationToken: ct);
                await channel.PublishAsync("", "cli", new byte[10_000], cancellationToken: ct);
            } // disposal closes with connection.close 200 and waits for close-ok
            // Connection 2 stays open: its frames must be in the file before the broker stops ...
            await using var second = await HarnessConnection.ConnectAsync("127.0.0.1", port, cancellationToken: ct);
            await (await second.OpenChannelAsync(cancellationToken: ct)).PublishAsync(
                "",
                "cli",
                new byte[5],
                cancellationToken: ct
            );
            IReadOnlyList<FrameLogSnapshot> live;
            // (connection 1's end line follows its close-ok asynchronously, so wait for it too)
            while (
                (live = JsonLinesReader.ReadFile(jsonl)).Count < 2
                || !live[0].Ended
                || !live[1].Frames.Any(f => f.Type == FrameType.Body)
            )
                await Task.Delay(50, ct);
            Assert.False(live[1].Ended);

            // ... and SIGINT/SIGTERM stops the broker, which closes connection 2 and completes the file.
            cli.Signal(signal);
            await cli.Process.WaitForExitAsync(ct);
            string stdout = cli.Output();
            output.WriteLine(stdout);
            Assert.Equal(0, cli.Process.ExitCode);
            Assert.Contains("stopping", stdout);
            Assert.Contains("connection 1: closed (Client 200", stdout);
            Assert.Matches(@"stopped: 2 connection\(s\)", stdout);

            IReadOnlyList<FrameLogSnapshot> logs = JsonLinesReader.ReadFile(jsonl);
            Assert.Equal([1L, 2L], logs.Select(l => l.ConnectionId));
            Assert.All(logs, l => Assert.True(l.Ended));
            Assert.Equal([4088, 4088, 1824], logs[0].Frames.Where(f => f.Type == FrameType.Body).Select(f => f.Size));
            Assert.Contains(logs[1].Frames, f => f.MethodName == "basic.publish");
            Assert.Contains(logs[1].Frames, f =>
                f.Direction == FrameDirection.Sent && f.MethodName == "connection.close"
            );
            Assert.Equal(0xA1B23C4Du, BitConverter.ToUInt32(File.ReadAllBytes(pcap), 0));
        }
        finally
        {
            if (!cli.Process.HasExited)
                cli.Process.Kill(entireProcessTree: true);
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task A_port_in_use_is_one_line_naming_the_address_and_exit_code_2()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        listener.Listen();
        int busy = ((System.Net.IPEndPoint)listener.LocalEndPoint!).Port;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        using var cli = RunningCli.Start(["broker", "--port", busy.ToString()]);
        await cli.Process.WaitForExitAsync(timeout.Token);
        Assert.Equal(2, cli.Process.ExitCode);
        Assert.Equal(
            $"broker: cannot listen on 127.0.0.1:{busy}:",
            cli.Errors().Trim().Split('\n').Single()[..$"broker: cannot listen on 127.0.0.1:{busy}:".Length]
        );
        Assert.Equal("", cli.Output().Trim());
    }

    private static async Task<int> ReadPortAsync(RunningCli cli, CancellationToken ct)
    {
        while (true)
        {
            Match match = ListeningLine().Match(cli.Output());
            if (match.Success)
                return int.Parse(match.Groups[1].Value);
            if (cli.Process.HasExited)
                throw new InvalidOperationException($"the broker exited early: {cli.Output()}{cli.Errors()}");
            await Task.Delay(50, ct);
        }
    }

    [GeneratedRegex(@"listening on 127\.0\.0\.1:(\d+)")]
    private static partial Regex ListeningLine();
}
