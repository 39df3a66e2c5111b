using System.Net.Sockets;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>Where the real RabbitMQ for parity tests listens: 127.0.0.1:5672, or RABBITMQ_PARITY_HOST / RABBITMQ_PARITY_PORT.</summary>
internal static class RealRabbitMq
{
    public static string Host { get; } = Environment.GetEnvironmentVariable("RABBITMQ_PARITY_HOST") is { Length: > 0 } host ? host : "127.0.0.1";

    public static int Port { get; } = int.TryParse(Environment.GetEnvironmentVariable("RABBITMQ_PARITY_PORT"), out int port) ? port : 5672;

    private static readonly Lazy<bool> Reachable = new(() =>
    {
        try
        {
            using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(2));
            socket.ConnectAsync(Host, Port, timeout.Token).AsTask().GetAwaiter().GetResult();
            return true;
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException)
        {
            return false;
        }
    });

    /// <summary>Null when a TCP connect succeeds; otherwise the skip reason.</summary>
    public static string? Missing() => Reachable.Value ? null : $"no RabbitMQ at {Host}:{Port} (start it with .ci/start-rabbitmq)";
}
