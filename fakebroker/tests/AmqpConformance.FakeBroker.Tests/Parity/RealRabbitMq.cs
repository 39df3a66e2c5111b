using System.Net.Sockets;
using DotNet.Testcontainers.Configurations;
using Testcontainers.RabbitMq;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>
/// The real RabbitMQ the parity tests compare the fake broker with, chosen once per process in this order:
/// <list type="number">
/// <item><c>RABBITMQ_PARITY_HOST</c> / <c>RABBITMQ_PARITY_PORT</c> when set (a broker you started);</item>
/// <item>127.0.0.1:5672 when something answers there (CI's rabbitmq-server, started by
/// <c>.ci/start-rabbitmq</c>);</item>
/// <item>a RabbitMQ 3.10 container started with Testcontainers when a Docker engine answers (started on first use,
/// removed when the test process ends);</item>
/// <item>none: the tests are skipped, with the reason.</item>
/// </list>
/// </summary>
internal static class RealRabbitMq
{
    /// <summary>The image of the container fallback: the RabbitMQ version the parity table was measured
    /// against.</summary>
    public const string Image = "rabbitmq:3.10";

    private const int AmqpPort = 5672;

    private static readonly Lazy<Choice> Chosen = new(Choose);
    private static readonly Lazy<Task<(string Host, int Port)>> Container = new(StartContainerAsync);

    private sealed record Choice(string? Host, int Port, bool UseContainer, string? SkipReason);

    /// <summary>Null when a real RabbitMQ is available by one of the ways above; otherwise the skip reason naming them
    /// all.</summary>
    public static string? Missing() => Chosen.Value.SkipReason;

    /// <summary>Where the chosen RabbitMQ listens for AMQP; starts the container the first time when that is the
    /// choice.</summary>
    public static async Task<(string Host, int Port)> EndpointAsync()
    {
        Choice choice = Chosen.Value;
        if (choice.SkipReason is not null)
            throw new InvalidOperationException(choice.SkipReason);
        return choice.UseContainer ? await Container.Value : (choice.Host!, choice.Port);
    }

    private static Choice Choose()
    {
        string? host = Environment.GetEnvironmentVariable("RABBITMQ_PARITY_HOST");
        string? portText = Environment.GetEnvironmentVariable("RABBITMQ_PARITY_PORT");
        if (!string.IsNullOrEmpty(host) || !string.IsNullOrEmpty(portText))
        {
            string given = string.IsNullOrEmpty(host) ? "127.0.0.1" : host;
            int port = int.TryParse(portText, out int p) ? p : AmqpPort;
            return Answers(given, port)
                ? new Choice(given, port, false, null)
                : new Choice(
                    null,
                    0,
                    false,
                    $"no RabbitMQ at {given}:{port} (RABBITMQ_PARITY_HOST/RABBITMQ_PARITY_PORT)"
                );
        }
        if (Answers("127.0.0.1", AmqpPort))
            return new Choice("127.0.0.1", AmqpPort, false, null);
        string? docker = DockerMissing();
        return docker is null
            ? new Choice(null, 0, true, null)
            : new Choice(
                null,
                0,
                false,
                $"no RabbitMQ at 127.0.0.1:{AmqpPort} (start it with .ci/start-rabbitmq) and {docker}"
            );
    }

    /// <summary>Null when Testcontainers finds a Docker engine that answers; otherwise why not.</summary>
    private static string? DockerMissing()
    {
        try
        {
            return TestcontainersSettings.OS.DockerEndpointAuthConfig is null
                ? "no Docker engine for a RabbitMQ container (Testcontainers found none)"
                : null;
        }
        catch (Exception e)
        {
            return $"no Docker engine for a RabbitMQ container ({e.GetType().Name}: {e.Message})";
        }
    }

    private static bool Answers(string host, int port)
    {
        try
        {
            using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(2));
            socket.ConnectAsync(host, port, timeout.Token).AsTask().GetAwaiter().GetResult();
            return true;
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException)
        {
            return false;
        }
    }

    private static async Task<(string Host, int Port)> StartContainerAsync()
    {
        // guest/guest, as the probes log in; the image lets guest connect from outside the container.
        RabbitMqContainer container = new RabbitMqBuilder(Image).WithUsername("guest").WithPassword("guest").Build();
        await container.StartAsync();
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
            container.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(30));
        return (container.Hostname, container.GetMappedPublicPort(AmqpPort));
    }
}
