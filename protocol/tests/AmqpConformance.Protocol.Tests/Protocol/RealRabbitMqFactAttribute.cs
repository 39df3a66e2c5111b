using System.Net.Sockets;

namespace AmqpConformance.Protocol.Tests;

/// <summary>A fact that runs only when a RabbitMQ broker answers on 127.0.0.1:5672 (CI starts one);
/// otherwise it is skipped with the reason.</summary>
public sealed class RealRabbitMqFactAttribute : FactAttribute
{
    public const string Host = "127.0.0.1";
    public const int Port = 5672;

    private static readonly Lazy<bool> Reachable = new(() =>
    {
        try
        {
            using var client = new TcpClient();
            return client.ConnectAsync(Host, Port).Wait(TimeSpan.FromSeconds(1)) && client.Connected;
        }
        catch (Exception e) when (e is SocketException or AggregateException)
        {
            return false;
        }
    });

    public RealRabbitMqFactAttribute()
    {
        if (!Reachable.Value)
            Skip = $"No RabbitMQ listening on {Host}:{Port} (bash .ci/run starts one).";
    }
}
