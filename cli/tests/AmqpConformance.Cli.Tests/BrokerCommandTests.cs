using System.Buffers;
using System.CommandLine;
using System.Diagnostics;
using System.Net.Sockets;
using System.Text.RegularExpressions;
using AmqpConformance.Harness.Protocol;
using AmqpConformance.Harness.Recording;
using AmqpConformance.Harness.Recording.Export;
using Xunit.Abstractions;

namespace AmqpConformance.Cli.Tests;

/// <summary><c>amqp-conformance broker</c> run as a real process: it listens, records frames live, and on SIGINT stops
/// with everything flushed; bad options are refused.</summary>
public sealed partial class BrokerCommandTests(ITestOutputHelper output)
{
    private static readonly string CliDll = Path.Combine(AppContext.BaseDirectory, "amqp-conformance.dll");

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
        ParseResult result = root.Parse("broker --port 0 --record a.jsonl --pcap a.pcap --frame-max 0 --heartbeat 5 --user a:b --user c:d:e --strictness rabbitmq --capture-bodies");
        Assert.Empty(result.Errors);
    }

    [Theory]
    [InlineData("INT")]
    [InlineData("TERM")]
    public async Task Records_live_and_stops_on_a_signal_with_the_log_flushed(string signal)
    {
        string dir = Directory.CreateTempSubdirectory("amqpc-cli-broker-").FullName;
        string jsonl = Path.Combine(dir, "frames.jsonl"), pcap = Path.Combine(dir, "frames.pcap");
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        CancellationToken ct = timeout.Token;
        using var cli = StartCli(["broker", "--port", "0", "--record", jsonl, "--pcap", pcap, "--frame-max", "4096", "--heartbeat", "0"]);
        try
        {
            int port = await ReadPortAsync(cli, ct);

            // Connection 1 publishes 10 000 bytes (3 body frames at frame_max 4096) and closes cleanly.
            await using (var first = await MiniClient.OpenAsync(port, ct))
            {
                await first.PublishAsync(new byte[10_000], ct);
                await first.CloseAsync(ct);
            }
            // Connection 2 stays open: its frames must be in the file before the broker stops ...
            await using var second = await MiniClient.OpenAsync(port, ct);
            await second.PublishAsync(new byte[5], ct);
            IReadOnlyList<FrameLogSnapshot> live;
            // (connection 1's end line follows its close-ok asynchronously, so wait for it too)
            while ((live = JsonLinesReader.ReadFile(jsonl)).Count < 2 || !live[0].Ended || !live[1].Frames.Any(f => f.Type == FrameType.Body))
                await Task.Delay(50, ct);
            Assert.False(live[1].Ended);

            // ... and SIGINT/SIGTERM stops the broker, which closes connection 2 and completes the file.
            Signal(cli, signal);
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
            Assert.Contains(logs[1].Frames, f => f.Direction == FrameDirection.Sent && f.MethodName == "connection.close");
            Assert.Equal(0xA1B23C4Du, BitConverter.ToUInt32(File.ReadAllBytes(pcap), 0));
        }
        finally
        {
            if (!cli.Process.HasExited) cli.Process.Kill(entireProcessTree: true);
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task A_port_in_use_is_a_clear_error()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        listener.Listen();
        int busy = ((System.Net.IPEndPoint)listener.LocalEndPoint!).Port;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        using var cli = StartCli(["broker", "--port", busy.ToString()]);
        await cli.Process.WaitForExitAsync(timeout.Token);
        Assert.NotEqual(0, cli.Process.ExitCode);
        Assert.Contains("cannot start", cli.Errors());
    }

    private static RunningCli StartCli(IEnumerable<string> arguments)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(CliDll);
        foreach (string argument in arguments) start.ArgumentList.Add(argument);
        return new RunningCli(Process.Start(start)!);
    }

    private static async Task<int> ReadPortAsync(RunningCli cli, CancellationToken ct)
    {
        while (true)
        {
            Match match = ListeningLine().Match(cli.Output());
            if (match.Success) return int.Parse(match.Groups[1].Value);
            if (cli.Process.HasExited) throw new InvalidOperationException($"the broker exited early: {cli.Output()}{cli.Errors()}");
            await Task.Delay(50, ct);
        }
    }

    /// <summary>Sends a POSIX signal with kill(1): <see cref="Process.Kill()"/> would be SIGKILL, not SIGINT.</summary>
    private static void Signal(RunningCli cli, string signal)
    {
        using var kill = Process.Start("kill", [$"-{signal}", cli.Process.Id.ToString()]);
        kill.WaitForExit(10_000);
        Assert.Equal(0, kill.ExitCode);
    }

    [GeneratedRegex(@"listening on 127\.0\.0\.1:(\d+)")]
    private static partial Regex ListeningLine();

    /// <summary>A started CLI process whose output is collected as it comes.</summary>
    private sealed class RunningCli : IDisposable
    {
        private readonly System.Text.StringBuilder _out = new(), _err = new();

        public RunningCli(Process process)
        {
            Process = process;
            process.OutputDataReceived += (_, e) => { lock (_out) _out.AppendLine(e.Data); };
            process.ErrorDataReceived += (_, e) => { lock (_err) _err.AppendLine(e.Data); };
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
        }

        public Process Process { get; }
        public string Output() { lock (_out) return _out.ToString(); }
        public string Errors() { lock (_err) return _err.ToString(); }
        public void Dispose() => Process.Dispose();
    }

    /// <summary>Just enough of an AMQP client: handshake, channel 1, one queue, publishes, close.</summary>
    private sealed class MiniClient : IAsyncDisposable
    {
        private readonly Socket _socket = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        private readonly ArrayBufferWriter<byte> _out = new();
        private byte[] _in = new byte[64 * 1024];
        private int _inLength;
        private int _frameMax;

        public static async Task<MiniClient> OpenAsync(int port, CancellationToken ct)
        {
            var client = new MiniClient();
            await client._socket.ConnectAsync("127.0.0.1", port, ct);
            client._out.Write(AmqpConstants.ProtocolHeader);
            await client.FlushAsync(ct);
            await client.ExpectAsync<ConnectionStart>(ct);
            await client.SendAsync(0, new ConnectionStartOk { Response = "\0guest\0guest"u8.ToArray() }, ct);
            ConnectionTune tune = await client.ExpectAsync<ConnectionTune>(ct);
            client._frameMax = (int)tune.FrameMax;
            await client.SendAsync(0, new ConnectionTuneOk { ChannelMax = tune.ChannelMax, FrameMax = tune.FrameMax }, ct);
            await client.SendAsync(0, new ConnectionOpen(), ct);
            await client.ExpectAsync<ConnectionOpenOk>(ct);
            await client.SendAsync(1, new ChannelOpen(), ct);
            await client.ExpectAsync<ChannelOpenOk>(ct);
            await client.SendAsync(1, new QueueDeclare { Queue = "cli" }, ct);
            await client.ExpectAsync<QueueDeclareOk>(ct);
            return client;
        }

        public async Task PublishAsync(byte[] body, CancellationToken ct)
        {
            FrameFormat.WriteFrame(_out, FrameType.Method, 1, MethodCodec.ToPayload(new BasicPublish { RoutingKey = "cli" }));
            var header = new ContentHeader((ulong)body.Length);
            var payload = new byte[header.EncodedLength()];
            header.Encode(payload);
            FrameFormat.WriteFrame(_out, FrameType.Header, 1, payload);
            FrameFormat.WriteBodyFrames(_out, 1, body, _frameMax);
            await FlushAsync(ct);
        }

        public async Task CloseAsync(CancellationToken ct)
        {
            await SendAsync(0, new ConnectionClose { ReplyCode = 200, ReplyText = "bye" }, ct);
            await ExpectAsync<ConnectionCloseOk>(ct);
        }

        private async Task SendAsync(ushort channel, IAmqpMethod method, CancellationToken ct)
        {
            FrameFormat.WriteFrame(_out, FrameType.Method, channel, MethodCodec.ToPayload(method));
            await FlushAsync(ct);
        }

        private async Task FlushAsync(CancellationToken ct)
        {
            ReadOnlyMemory<byte> bytes = _out.WrittenMemory;
            while (!bytes.IsEmpty) bytes = bytes[await _socket.SendAsync(bytes, SocketFlags.None, ct)..];
            _out.ResetWrittenCount();
        }

        private async Task<T> ExpectAsync<T>(CancellationToken ct) where T : IAmqpMethod
        {
            while (true)
            {
                var buffer = new ReadOnlySequence<byte>(_in, 0, _inLength);
                if (FrameReader.TryReadFrame(ref buffer, long.MaxValue, out RawFrame frame) == FrameReadStatus.Frame)
                {
                    IAmqpMethod? method = frame.Type == FrameType.Method ? MethodCodec.Decode(frame.Payload) : null;
                    int consumed = (int)frame.WireLength;
                    _in.AsSpan(consumed, _inLength - consumed).CopyTo(_in);
                    _inLength -= consumed;
                    if (method is null) continue;
                    return method is T expected ? expected : throw new InvalidOperationException($"expected {typeof(T).Name}, got {method}");
                }
                if (_inLength == _in.Length) Array.Resize(ref _in, _in.Length * 2);
                int read = await _socket.ReceiveAsync(_in.AsMemory(_inLength), SocketFlags.None, ct);
                if (read == 0) throw new IOException($"the broker closed the connection while {typeof(T).Name} was expected");
                _inLength += read;
            }
        }

        public ValueTask DisposeAsync()
        {
            _socket.Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
