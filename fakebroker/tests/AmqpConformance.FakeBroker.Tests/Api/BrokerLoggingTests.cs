using Microsoft.Extensions.Logging;

namespace AmqpConformance.FakeBroker.Tests.Api;

/// <summary>The broker logs through <see cref="FakeAmqpBrokerOptions.LoggerFactory"/>: a connection's arrival and end at
/// Information, a violation that closes it at Warning, with their structured values; and nothing without a
/// factory.</summary>
public sealed class BrokerLoggingTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task Logs_a_connection_accepted_a_protocol_violation_and_the_close_through_the_given_factory()
    {
        using var cts = new CancellationTokenSource(Timeout);
        var loggers = new CapturingLoggerFactory();
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions { HeartbeatSeconds = 0, LoggerFactory = loggers }
        );
        await using (var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token))
        {
            await client.HandshakeAsync(cancellationToken: cts.Token);
            await client.OpenChannelAsync(1, cts.Token);
            await client.SendBytesAsync(
                MalformedFrames.WithFrameEnd(FrameBytes.Method(1, new Protocol.BasicQos { PrefetchCount = 1 }), 0x00),
                cts.Token
            );
            await client.ExpectConnectionCloseAsync(cts.Token);
        }
        BrokerConnection connection = await broker.WaitForConnectionAsync(0, cts.Token);
        await connection.Completion.WaitAsync(cts.Token);

        IReadOnlyList<CapturingLoggerFactory.Entry> entries = loggers.Entries;
        Assert.All(entries, e => Assert.Equal("AmqpConformance.FakeBroker", e.Category));

        CapturingLoggerFactory.Entry accepted = Assert.Single(entries, e => e.EventId.Name == "ConnectionAccepted");
        Assert.Equal(LogLevel.Information, accepted.Level);
        Assert.Equal(1L, accepted.State["ConnectionId"]);
        Assert.StartsWith("connection 1: accepted from 127.0.0.1:", accepted.Message, StringComparison.Ordinal);

        CapturingLoggerFactory.Entry violation = Assert.Single(entries, e => e.EventId.Name == "ProtocolViolation");
        Assert.Equal(LogLevel.Warning, violation.Level);
        Assert.Equal(501, violation.State["ReplyCode"]);
        Assert.Equal("bad-frame-end", violation.State["Rule"]);
        Assert.Equal("closing the connection", violation.State["Action"]);

        CapturingLoggerFactory.Entry closed = Assert.Single(entries, e => e.EventId.Name == "ConnectionClosed");
        Assert.Equal(LogLevel.Information, closed.Level);
        Assert.Equal(1, closed.State["FindingCount"]);
        Assert.Contains("501", (string)closed.State["CloseReason"]!, StringComparison.Ordinal);

        // The event ids are the API of the log: each name has one id.
        Assert.All(entries.GroupBy(e => e.EventId.Name), g => Assert.Single(g.Select(e => e.EventId.Id).Distinct()));
        Assert.DoesNotContain(entries, e => e.Level >= LogLevel.Information && e.EventId.Name == "FindingReported");
    }

    [Fact]
    public async Task A_finding_reported_without_closing_is_debug_only()
    {
        using var cts = new CancellationTokenSource(Timeout);
        var loggers = new CapturingLoggerFactory();
        await using var broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions
            {
                HeartbeatSeconds = 0,
                FrameMax = 4096,
                LoggerFactory = loggers,
            }
        );
        await using (var client = await AmqpTestClient.ConnectAsync(broker.Endpoint, cts.Token))
        {
            await client.HandshakeAsync(cancellationToken: cts.Token);
            await client.OpenChannelAsync(1, cts.Token);
            // A body frame of 4098 bytes at frame_max 4096: within RabbitMQ's 8 bytes of slack, so reported (strict),
            // not closed.
            await client.SendBytesAsync(
                FrameBytes.Method(1, new Protocol.BasicPublish { RoutingKey = "q" }),
                cts.Token
            );
            await client.SendBytesAsync(FrameBytes.Header(1, 4090), cts.Token);
            await client.SendFrameAsync(Protocol.FrameType.Body, 1, new byte[4090], cts.Token);
            await client.CloseAsync(cts.Token);
        }
        BrokerConnection connection = await broker.WaitForConnectionAsync(0, cts.Token);
        await connection.Completion.WaitAsync(cts.Token);
        Assert.Contains(connection.Findings, f => !f.ClosedConnection);
        IReadOnlyList<CapturingLoggerFactory.Entry> entries = loggers.Entries;
        Assert.Contains(entries, e => e.EventId.Name == "FindingReported" && e.Level == LogLevel.Debug);
        Assert.DoesNotContain(entries, e => e.Level >= LogLevel.Warning);
    }

    /// <summary>A logger factory that keeps every entry, at every level, with its structured state.</summary>
    private sealed class CapturingLoggerFactory : ILoggerFactory
    {
        private readonly List<Entry> _entries = [];

        public sealed record Entry(
            string Category,
            LogLevel Level,
            EventId EventId,
            string Message,
            IReadOnlyDictionary<string, object?> State
        );

        public IReadOnlyList<Entry> Entries
        {
            get
            {
                lock (_entries)
                    return [.. _entries];
            }
        }

        public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

        public void AddProvider(ILoggerProvider provider) => throw new NotSupportedException();

        public void Dispose() { }

        private sealed class Logger(CapturingLoggerFactory owner, string category) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(
                LogLevel logLevel,
                EventId eventId,
                TState state,
                Exception? exception,
                Func<TState, Exception?, string> formatter
            )
            {
                var values = (state as IReadOnlyList<KeyValuePair<string, object?>> ?? []).ToDictionary(
                    p => p.Key,
                    p => p.Value
                );
                lock (owner._entries)
                    owner._entries.Add(new Entry(category, logLevel, eventId, formatter(state, exception), values));
            }
        }
    }
}
