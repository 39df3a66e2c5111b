using System.CommandLine;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text.RegularExpressions;
using AmqpConformance.Toxiproxy;

namespace AmqpConformance.Cli.Tests;

[Trait("Area", "Faults")]
public sealed partial class ProxyCommandTests
{
    [GeneratedRegex(@"listening on (\S+) -> ")]
    private static partial Regex ListenLine();

    [GeneratedRegex(@"Toxiproxy API on (\S+)")]
    private static partial Regex ApiLine();

    [Fact]
    public async Task Proxy_command_serves_the_api_forwards_with_toxics_and_stops_on_cancel()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        using var echo = new TcpListener(IPAddress.Loopback, 0);
        echo.Start();
        Task echoing = EchoOnceAsync(echo, timeout.Token);
        int echoPort = ((IPEndPoint)echo.LocalEndpoint).Port;

        var root = new RootCommand { ProxyCommand.Create() };
        var output = new SynchronizedWriter();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token);
        Task<int> running = root.Parse([
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "--upstream",
                $"127.0.0.1:{echoPort}",
                "--api",
                "127.0.0.1:0",
                "--name",
                "amqp",
            ])
            .InvokeAsync(new InvocationConfiguration { Output = output, Error = output }, stop.Token);

        string text;
        while (!ApiLine().IsMatch(text = output.Text))
        {
            Assert.False(running.IsCompleted, "the command ended early: " + text);
            await Task.Delay(20, timeout.Token);
        }
        string listen = ListenLine().Match(text).Groups[1].Value;
        var api = new Uri(ApiLine().Match(text).Groups[1].Value);
        int port = int.Parse(
            listen[(listen.LastIndexOf(':') + 1)..],
            System.Globalization.CultureInfo.InvariantCulture
        );

        using var client = new ToxiproxyClient(api);
        ProxyConfig proxy = await client.GetProxyAsync("amqp", timeout.Token);
        Assert.Equal(port, proxy.ListenPort);
        await client.AddToxicAsync(
            "amqp",
            "latency",
            "downstream",
            new Dictionary<string, long> { ["latency"] = 100 },
            cancellationToken: timeout.Token
        );

        using (var tcp = new TcpClient())
        {
            await tcp.ConnectAsync(IPAddress.Loopback, port, timeout.Token);
            NetworkStream stream = tcp.GetStream();
            var watch = Stopwatch.StartNew();
            await stream.WriteAsync("ping"u8.ToArray(), timeout.Token);
            byte[] back = new byte[4];
            await stream.ReadExactlyAsync(back, timeout.Token);
            Assert.Equal("ping"u8.ToArray(), back);
            // A lower bound only, which load cannot break: the toxic existed before the connection, so even its first
            // byte is held (the proxy applies toxics before it forwards anything), and a toxic's delay never ends
            // early. The exact delays are proven on virtual time in the toxiproxy tests (VirtualTimeToxicTests).
            Assert.True(
                watch.ElapsedMilliseconds >= 80,
                $"echo came back after {watch.ElapsedMilliseconds} ms through 100 ms of latency"
            );
        }

        stop.Cancel();
        Assert.Equal(0, await running.WaitAsync(timeout.Token));
        Assert.Contains("stopping proxy", output.Text);
        await Assert.ThrowsAsync<HttpRequestException>(() => client.GetVersionAsync(timeout.Token));
        using var refused = new TcpClient();
        await Assert.ThrowsAsync<SocketException>(() =>
            refused.ConnectAsync(IPAddress.Loopback, port, timeout.Token).AsTask()
        );
        await echoing;
    }

    [Fact]
    public async Task Proxy_command_refuses_a_non_loopback_api_address()
    {
        var root = new RootCommand { ProxyCommand.Create() };
        var output = new SynchronizedWriter();
        int code = await root.Parse([
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "--upstream",
                "127.0.0.1:5672",
                "--api",
                "10.1.2.3:8474",
            ])
            .InvokeAsync(new InvocationConfiguration { Output = output, Error = output });
        Assert.Equal(2, code);
        Assert.Contains("loopback", output.Text);
    }

    [Fact]
    public async Task Proxy_command_applies_a_fault_plan_as_toxics_and_rejects_a_bad_one()
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        string dir = Directory.CreateTempSubdirectory("amqpc-proxy-").FullName;
        try
        {
            string good = Path.Combine(dir, "plan.json");
            await File.WriteAllTextAsync(
                good,
                new AmqpConformance.Harness.Faults.FaultPlan(
                    5,
                    [
                        new AmqpConformance.Harness.Faults.LatencyFault(30),
                        new AmqpConformance.Harness.Faults.StallFault(10),
                    ]
                ).ToJson(),
                timeout.Token
            );
            var root = new RootCommand { ProxyCommand.Create() };
            var output = new SynchronizedWriter();
            using var stop = CancellationTokenSource.CreateLinkedTokenSource(timeout.Token);
            Task<int> running = root.Parse([
                    "proxy",
                    "--listen",
                    "127.0.0.1:0",
                    "--upstream",
                    "127.0.0.1:5672",
                    "--api",
                    "127.0.0.1:0",
                    "--plan",
                    good,
                ])
                .InvokeAsync(new InvocationConfiguration { Output = output, Error = output }, stop.Token);
            while (!output.Text.Contains("Press Ctrl+C to stop.")) // the last line of the start-up, after the plan's notes
            {
                Assert.False(running.IsCompleted, "the command ended early: " + output.Text);
                await Task.Delay(20, timeout.Token);
            }
            using (var client = new ToxiproxyClient(new Uri(ApiLine().Match(output.Text).Groups[1].Value)))
            {
                IReadOnlyList<ToxicConfig> toxics = await client.GetToxicsAsync("amqp", timeout.Token);
                ToxicConfig latency = Assert.Single(toxics);
                Assert.Equal("latency", latency.Type);
                Assert.Equal(30, latency.Attribute("latency"));
            }
            Assert.Contains("plan: #1", output.Text); // the stall has no toxic, and the command says so
            stop.Cancel();
            Assert.Equal(0, await running.WaitAsync(timeout.Token));

            string bad = Path.Combine(dir, "bad.json");
            await File.WriteAllTextAsync(bad, "{\"seed\":1,\"faults\":[{\"type\":\"gremlin\"}]}", timeout.Token);
            var badOutput = new SynchronizedWriter();
            int code = await new RootCommand { ProxyCommand.Create() }
                .Parse([
                    "proxy",
                    "--listen",
                    "127.0.0.1:0",
                    "--upstream",
                    "127.0.0.1:5672",
                    "--api",
                    "127.0.0.1:0",
                    "--plan",
                    bad,
                ])
                .InvokeAsync(new InvocationConfiguration { Output = badOutput, Error = badOutput }, timeout.Token);
            Assert.Equal(2, code);
            Assert.Contains("--plan", badOutput.Text);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    private static async Task EchoOnceAsync(TcpListener listener, CancellationToken ct)
    {
        using TcpClient peer = await listener.AcceptTcpClientAsync(ct);
        NetworkStream s = peer.GetStream();
        byte[] buffer = new byte[256];
        int n;
        while ((n = await s.ReadAsync(buffer, ct)) > 0)
            await s.WriteAsync(buffer.AsMemory(0, n), ct);
    }

    private sealed class SynchronizedWriter : StringWriter
    {
        private readonly object _gate = new();
        public string Text
        {
            get
            {
                lock (_gate)
                    return ToString();
            }
        }

        public override void Write(char value)
        {
            lock (_gate)
                base.Write(value);
        }

        public override void Write(string? value)
        {
            lock (_gate)
                base.Write(value);
        }

        public override void Write(char[] buffer, int index, int count)
        {
            lock (_gate)
                base.Write(buffer, index, count);
        }

        public override Task WriteAsync(string? value)
        {
            Write(value);
            return Task.CompletedTask;
        }

        public override Task WriteLineAsync(string? value)
        {
            lock (_gate)
                base.WriteLine(value);
            return Task.CompletedTask;
        }

        public override Task FlushAsync() => Task.CompletedTask;
    }
}
