using System.Reflection;
using AmqpConformance.Properties.Clients;
using RabbitMQ.Client;

namespace AmqpConformanceTests;

/// <summary>RabbitMQ.Client 7.x as a client under test: one IConnection per session, one IChannel per publisher
/// channel, publisher confirms with tracking (so BasicPublishAsync completes on the broker's ack), the sequence number
/// read before each publish.</summary>
/// <remarks>Shipped as source in the amqp-conformance template, so it compiles against whichever RabbitMQ.Client 7.x
/// your test project references (the package, or a build of your own named by the project's RabbitMqClientAssembly
/// property). The AmqpConformance repository's own client suite compiles this very file.</remarks>
public sealed class RabbitMqClientAdapter : ClientAdapter
{
    /// <summary>The environment variable that sets <c>ConnectionFactory.UseBackgroundFrameWriter</c> (<c>true</c>: frames
    /// go through the client's background writer; <c>false</c>: written inline by the caller), which RabbitMQ.Client builds
    /// with a choice of frame writers have (rabbitmq-dotnet-client PR #1912). Unset: the client's default.</summary>
    public const string BackgroundWriterVariable = "AMQP_CONFORMANCE_RABBITMQ_BACKGROUND_WRITER";

    private const string BackgroundWriterProperty = "UseBackgroundFrameWriter";

    /// <summary>The client's <c>UseBackgroundFrameWriter</c>, when this build of it has one.</summary>
    private static readonly PropertyInfo? BackgroundWriterSetting = typeof(ConnectionFactory).GetProperty(
        BackgroundWriterProperty,
        BindingFlags.Public | BindingFlags.Instance,
        null,
        typeof(bool),
        Type.EmptyTypes,
        null
    );

    private readonly bool? _useBackgroundFrameWriter;

    /// <summary>The client as <see cref="BackgroundWriterVariable"/> says.</summary>
    /// <exception cref="InvalidOperationException">The variable is neither empty, true nor false, or it is set and this
    /// RabbitMQ.Client has no <c>ConnectionFactory.UseBackgroundFrameWriter</c>.</exception>
    public RabbitMqClientAdapter()
        : this(ReadBackgroundWriterVariable()) { }

    /// <summary>The client with <c>ConnectionFactory.UseBackgroundFrameWriter</c> set to
    /// <paramref name="useBackgroundFrameWriter"/> (null: left at the client's default).</summary>
    /// <exception cref="InvalidOperationException">It is not null and this RabbitMQ.Client has no
    /// <c>ConnectionFactory.UseBackgroundFrameWriter</c>.</exception>
    public RabbitMqClientAdapter(bool? useBackgroundFrameWriter)
    {
        if (useBackgroundFrameWriter is not null && BackgroundWriterSetting is not { CanWrite: true })
            throw new InvalidOperationException(
                $"Asked to set ConnectionFactory.{BackgroundWriterProperty}={useBackgroundFrameWriter.Value.ToString().ToLowerInvariant()} "
                    + $"({BackgroundWriterVariable}), but RabbitMQ.Client {ClientVersion} "
                    + $"({typeof(ConnectionFactory).Assembly.Location}) has no such settable bool property. Point the "
                    + "project at a client build that has it (-p:RabbitMqClientAssembly=.../RabbitMQ.Client.dll), or unset "
                    + $"{BackgroundWriterVariable}."
            );
        _useBackgroundFrameWriter = useBackgroundFrameWriter;
        bool? background = useBackgroundFrameWriter
            ?? (bool?)BackgroundWriterSetting?.GetValue(new ConnectionFactory());
        Name =
            $"RabbitMQ.Client {ClientVersion} ("
            + (
                background is null ? "background writer, no " + BackgroundWriterProperty
                : background.Value ? $"background writer, {BackgroundWriterProperty}=true"
                : $"inline writer, {BackgroundWriterProperty}=false"
            )
            + ")";
        if (background is not null)
            Settings = new Dictionary<string, string>
            {
                [BackgroundWriterProperty] = background.Value ? "true" : "false",
            };
    }

    /// <summary>"RabbitMQ.Client", the client's informational version and the frame writer it runs with, so reports
    /// say what was tested.</summary>
    public override string Name { get; }

    /// <summary>The client's informational version (<see cref="ClientVersion"/>): known deviations are scoped by
    /// it.</summary>
    public override string? Version => ClientVersion;

    /// <summary>"UseBackgroundFrameWriter" -> "true" or "false" where this build of the client has the setting;
    /// empty where it has not (every build before PR #1912 writes through its background writer).</summary>
    public override IReadOnlyDictionary<string, string> Settings { get; } = new Dictionary<string, string>();

    /// <summary>The informational version of the RabbitMQ.Client assembly loaded (with its commit when the build
    /// stamped one).</summary>
    public static string ClientVersion { get; } =
        typeof(ConnectionFactory)
            .Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()
            ?.InformationalVersion
        ?? typeof(ConnectionFactory).Assembly.GetName().Version?.ToString()
        ?? "(unknown version)";

    private static bool? ReadBackgroundWriterVariable()
    {
        string? value = Environment.GetEnvironmentVariable(BackgroundWriterVariable);
        if (string.IsNullOrWhiteSpace(value))
            return null;
        if (bool.TryParse(value.Trim(), out bool parsed))
            return parsed;
        throw new InvalidOperationException(
            $"{BackgroundWriterVariable} is \"{value}\"; it takes true (the background frame writer), false (inline) or nothing (the client's default)."
        );
    }

    public override async Task<IClientSession> ConnectAsync(
        ClientConnectOptions options,
        CancellationToken cancellationToken
    )
    {
        var factory = new ConnectionFactory
        {
            HostName = options.Endpoint.Address.ToString(),
            Port = options.Endpoint.Port,
            RequestedFrameMax = (uint)options.FrameMax,
            AutomaticRecoveryEnabled = false,
            TopologyRecoveryEnabled = false,
            RequestedConnectionTimeout = TimeSpan.FromSeconds(5),
            ContinuationTimeout = TimeSpan.FromSeconds(5),
        };
        if (_useBackgroundFrameWriter is bool background)
            BackgroundWriterSetting!.SetValue(factory, background);
        var connection = await factory.CreateConnectionAsync(cancellationToken);
        return new Session(connection, options.Confirms);
    }

    private sealed class Session(IConnection connection, bool confirms) : IClientSession
    {
        public async Task<IClientPublisher> OpenChannelAsync(CancellationToken cancellationToken)
        {
            var channel = await connection.CreateChannelAsync(
                new CreateChannelOptions(confirms, confirms),
                cancellationToken
            );
            return new Publisher(channel, confirms);
        }

        public async ValueTask DisposeAsync()
        {
            try
            {
                await connection.CloseAsync(TimeSpan.FromSeconds(2));
            }
            finally
            {
                connection.Dispose();
            }
        }
    }

    private sealed class Publisher(IChannel channel, bool confirms) : IClientPublisher
    {
        public ushort ChannelNumber => (ushort)channel.ChannelNumber;

        public async Task<ulong?> PublishAsync(
            string routingKey,
            ReadOnlyMemory<byte> body,
            int headerBytes,
            CancellationToken cancellationToken
        )
        {
            ulong? sequence = confirms ? await channel.GetNextPublishSequenceNumberAsync(cancellationToken) : null;
            var properties = new BasicProperties
            {
                ContentType = "application/octet-stream",
                DeliveryMode = DeliveryModes.Persistent,
            };
            if (headerBytes > 0)
                properties.Headers = new Dictionary<string, object?> { ["x-pad"] = new string('h', headerBytes) };
            await channel.BasicPublishAsync("", routingKey, mandatory: false, properties, body, cancellationToken);
            return sequence;
        }

        public async ValueTask DisposeAsync()
        {
            try
            {
                if (channel.IsOpen)
                    await channel.CloseAsync();
            }
            finally
            {
                channel.Dispose();
            }
        }
    }
}
