using System.Diagnostics;
using RabbitMQ.Client;

namespace AmqpConformance.Toxiproxy.Tests;

/// <summary>RabbitMQ.Client publishing to a real RabbitMQ through a real Toxiproxy, both started from the
/// repository's docker-compose.yml. Skipped where no Docker engine runs.</summary>
[Trait("Area", "Faults")]
[Trait("Requires", "Docker")]
public sealed class DockerComposeTests
{
    private static string ComposeFile()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
            if (
                File.Exists(Path.Combine(dir.FullName, "docker-compose.yml"))
                && File.Exists(Path.Combine(dir.FullName, "AmqpConformance.sln"))
            )
                return Path.Combine(dir.FullName, "docker-compose.yml");
        string fallback = Path.Combine(Environment.CurrentDirectory, "docker-compose.yml");
        return File.Exists(fallback)
            ? fallback
            : throw new FileNotFoundException("docker-compose.yml not found above " + AppContext.BaseDirectory);
    }

    private static async Task RunAsync(string arguments, TimeSpan timeout)
    {
        using var process = Process.Start(
            new ProcessStartInfo("docker", arguments)
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            }
        )!;
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        using var cts = new CancellationTokenSource(timeout);
        try
        {
            await process.WaitForExitAsync(cts.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"docker {arguments} did not finish within {timeout}.");
        }
        if (process.ExitCode != 0)
            throw new InvalidOperationException(
                $"docker {arguments} failed ({process.ExitCode}): {await stderr}{await stdout}"
            );
    }

    [RequiresDockerFact]
    public async Task Publishes_to_real_rabbitmq_through_real_toxiproxy_with_latency()
    {
        string compose = ComposeFile();
        await RunAsync($"compose -f \"{compose}\" up -d --wait", TimeSpan.FromMinutes(5));
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        using var client = new ToxiproxyClient(new Uri("http://127.0.0.1:8474"));
        await client.ResetAsync(cts.Token);
        ProxyConfig proxy = await client.GetProxyAsync("rabbitmq", cts.Token);
        Assert.Equal("rabbitmq:5672", proxy.Upstream);

        var factory = new ConnectionFactory
        {
            HostName = "127.0.0.1",
            Port = 25672,
            AutomaticRecoveryEnabled = false,
        };
        await using IConnection connection = await factory.CreateConnectionAsync(cts.Token);
        await using IChannel channel = await connection.CreateChannelAsync(
            new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true),
            cts.Token
        );
        QueueDeclareOk queue = await channel.QueueDeclareAsync(
            "",
            durable: false,
            exclusive: true,
            autoDelete: true,
            cancellationToken: cts.Token
        );

        await client.AddToxicAsync(
            "rabbitmq",
            "latency",
            "upstream",
            new Dictionary<string, long> { ["latency"] = 200 },
            cancellationToken: cts.Token
        );
        try
        {
            var watch = Stopwatch.StartNew();
            await channel.BasicPublishAsync(
                "",
                queue.QueueName,
                mandatory: false,
                new BasicProperties(),
                new byte[1000],
                cts.Token
            );
            Assert.True(
                watch.ElapsedMilliseconds >= 160,
                $"confirm came after {watch.ElapsedMilliseconds} ms with 200 ms latency"
            );
            QueueDeclareOk after = await channel.QueueDeclarePassiveAsync(queue.QueueName, cts.Token);
            Assert.Equal(1u, after.MessageCount);
        }
        finally
        {
            await client.ResetAsync(CancellationToken.None);
        }
    }
}
