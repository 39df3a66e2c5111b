using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using AmqpConformance.FakeBroker;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance broker</c>: runs the fake broker standalone on loopback, records every connection's frames to a
/// JSON Lines file as they arrive (and, on stop, to a pcap), logs each connection's close reason and findings, and
/// stops cleanly on Ctrl+C or SIGTERM with everything flushed.
/// </summary>
/// <remarks>Everything it prints once it listens goes through a <see cref="BoundedConsoleLoggerProvider"/> at
/// <c>--log-level</c> in <c>--log-format</c>: a console that stops reading loses lines, never stalls a connection or
/// the stop.</remarks>
internal static class BrokerCommand
{
    public static Command Create()
    {
        var port = new Option<int>("--port")
        {
            Description = "TCP port on 127.0.0.1 (0 picks a free one; the chosen port is printed)",
            DefaultValueFactory = _ => 5672,
        };
        port.Validators.Add(r =>
        {
            if (OptionValues.TryGet(r, out int value) && value is < 0 or > 65535)
                r.AddError("--port must be 0-65535.");
        });

        var record = new Option<FileInfo?>("--record")
        {
            Description = "JSON Lines file that receives every frame as it arrives (replaced if present)",
        };
        var pcap = new Option<FileInfo?>("--pcap")
        {
            Description =
                "pcap file written on stop with every connection as synthesized TCP (tshark/Wireshark read it)",
        };

        var frameMax = new Option<int>("--frame-max")
        {
            Description = "frame_max offered in connection.tune (0 = unlimited, else at least 4096)",
            DefaultValueFactory = _ => 131072,
        };
        frameMax.Validators.Add(r =>
        {
            if (OptionValues.TryGet(r, out int value) && value != 0 && value < 4096)
                r.AddError($"--frame-max {value} is below the AMQP minimum 4096 (use 0 for unlimited).");
        });

        var heartbeat = new Option<int>("--heartbeat")
        {
            Description = "heartbeat interval offered in connection.tune, in seconds (0 = none)",
            DefaultValueFactory = _ => 60,
        };
        heartbeat.Validators.Add(r =>
        {
            if (OptionValues.TryGet(r, out int value) && value is < 0 or > ushort.MaxValue)
                r.AddError("--heartbeat must be 0-65535 seconds.");
        });

        var users = new Option<string[]>("--user")
        {
            Description = "a user allowed to log in, as name:password (repeatable; default guest:guest)",
            AllowMultipleArgumentsPerToken = false,
            Arity = ArgumentArity.OneOrMore,
        };
        users.Validators.Add(r =>
        {
            foreach (string user in OptionValues.TryGet(r, out string[]? given) ? given ?? [] : [])
                if (user.IndexOf(':', StringComparison.Ordinal) <= 0)
                    r.AddError($"--user \"{user}\" is not name:password.");
        });

        var strictness = new Option<string>("--strictness")
        {
            Description =
                "strict: also report what RabbitMQ lets through; rabbitmq: validate exactly like RabbitMQ 3.x",
            DefaultValueFactory = _ => "strict",
        };
        strictness.AcceptOnlyFromAmong("strict", "rabbitmq");

        var captureBodies = new Option<bool>("--capture-bodies")
        {
            Description = "keep whole body payloads in the record (default: digests only)",
        };
        Option<string> logLevel = LogOptions.LevelOption();
        Option<string> logFormat = LogOptions.FormatOption();

        var command = new Command("broker", "Run the fake AMQP 0-9-1 broker on 127.0.0.1 and record every frame.")
        {
            port,
            record,
            pcap,
            frameMax,
            heartbeat,
            users,
            strictness,
            captureBodies,
            logLevel,
            logFormat,
        };
        command.SetAction(
            (result, cancellationToken) =>
                RunAsync(
                    new BrokerRun(
                        result.GetValue(port),
                        result.GetValue(record),
                        result.GetValue(pcap),
                        result.GetValue(frameMax),
                        (ushort)result.GetValue(heartbeat),
                        result.GetValue(users) is { Length: > 0 } given ? given : ["guest:guest"],
                        result.GetValue(strictness) == "rabbitmq" ? Strictness.RabbitMq : Strictness.Strict,
                        result.GetValue(captureBodies),
                        LogOptions.ParseLevel(result.GetValue(logLevel)!),
                        LogOptions.ParseFormat(result.GetValue(logFormat)!)
                    ),
                    result.InvocationConfiguration.Output,
                    result.InvocationConfiguration.Error,
                    cancellationToken
                )
        );
        return command;
    }

    /// <summary>The parsed options of one run.</summary>
    private sealed record BrokerRun(
        int Port,
        FileInfo? Record,
        FileInfo? Pcap,
        int FrameMax,
        ushort Heartbeat,
        string[] Users,
        Strictness Strictness,
        bool CaptureBodies,
        LogLevel LogLevel,
        LogFormat LogFormat
    );

    /// <summary>Without --pcap, each live connection's log holds only its newest this-many frames (the rest were
    /// streamed to --record, or nobody reads them).</summary>
    private const int LiveLogFrames = 10_000;

    /// <summary>Starts the broker and runs it until <paramref name="stop"/>. Returns <see cref="ExitCodes.BadInput"/>
    /// with one line on <paramref name="error"/> when it cannot start (the port is taken: the line names the address; a
    /// file cannot be written), <see cref="ExitCodes.Violation"/> when a recording failed while running, else
    /// <see cref="ExitCodes.Ok"/>.</summary>
    private static async Task<int> RunAsync(BrokerRun run, TextWriter output, TextWriter error, CancellationToken stop)
    {
        using var sink = new BoundedConsoleLoggerProvider(output, run.LogFormat);
        using ILoggerFactory loggers = LogOptions.CreateFactory(sink, run.LogLevel);
        int exitCode = await RunAsync(run, sink, loggers, error, stop);
        await LogOptions.CompleteAsync(sink, "broker", error);
        return exitCode;
    }

    private static async Task<int> RunAsync(
        BrokerRun run,
        BoundedConsoleLoggerProvider sink,
        ILoggerFactory loggers,
        TextWriter error,
        CancellationToken stop
    )
    {
        ILogger log = loggers.CreateLogger(CliLog.Category);
        var options = new FakeAmqpBrokerOptions
        {
            LoggerFactory = loggers,
            Port = run.Port,
            FrameMax = run.FrameMax,
            HeartbeatSeconds = run.Heartbeat,
            Users = run.Users.Select(u => u.Split(':', 2)).ToDictionary(p => p[0], p => p[1], StringComparer.Ordinal),
            Strictness = run.Strictness,
            // A standalone broker may run for hours. Without --pcap nothing reads the logs after the fact (--record
            // streams them as they grow), so each live log holds only its newest frames and ended connections are
            // evicted under the default retention budget: memory stays flat. The pcap is written on stop from memory,
            // so it keeps all.
            FrameLog = new FrameLogOptions
            {
                CaptureBodies = run.CaptureBodies,
                MaxRetainedFrames = run.Pcap is null ? LiveLogFrames : null,
            },
            Retention = run.Pcap is null ? ConnectionRetention.Default : ConnectionRetention.Unlimited,
            KeepPublished = false,
            // System.CommandLine gives the action 2 s after SIGINT/SIGTERM: close connections well within that.
            CloseTimeout = TimeSpan.FromMilliseconds(500),
        };

        if (run.Pcap?.Directory is { Exists: false } pcapFolder)
            return CliApplication.BadInput(
                error,
                $"broker: --pcap {run.Pcap.FullName}: the folder {pcapFolder.FullName} does not exist."
            );
        JsonLinesLiveRecorder? recorder = null;
        try
        {
            recorder = run.Record is null ? null : JsonLinesLiveRecorder.Create(run.Record.FullName);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return CliApplication.BadInput(error, $"broker: --record {run.Record!.FullName}: {e.Message}");
        }
        FakeAmqpBroker broker;
        try
        {
            broker = await FakeAmqpBroker.StartAsync(options, stop);
        }
        catch (Exception e) when (e is IOException or System.Net.Sockets.SocketException or ArgumentException)
        {
            if (recorder is not null)
                await recorder.DisposeAsync();
            string address = string.Create(CultureInfo.InvariantCulture, $"{options.Host}:{run.Port}");
            return CliApplication.BadInput(error, $"broker: cannot listen on {address}: {e.Message}");
        }

        // Per-connection state lives only while the connection does, so a long run does not grow with each connection.
        var pending = new System.Collections.Concurrent.ConcurrentDictionary<long, Task>();
        long framesRecorded = 0;
        // Connections accepted before the handler was in place are tracked by the loop below; ids up to the watermark
        // may reach both, so those are deduplicated (a handful at most: the set is not used after start-up).
        var early = new HashSet<long>();
        long watermark = long.MaxValue;
        void Track(BrokerConnection connection)
        {
            lock (early)
                if (connection.Id <= Interlocked.Read(ref watermark) && !early.Add(connection.Id))
                    return;
            recorder?.Attach(connection.Log);
            var reported = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            pending[connection.Id] = reported.Task; // before the continuation exists, so its removal cannot come first
            _ = connection.Completion.ContinueWith(
                _ =>
                {
                    try
                    {
                        Interlocked.Add(ref framesRecorded, connection.Log.NextSequence);
                        OnEnded(connection, recorder, log);
                    }
                    finally
                    {
                        pending.TryRemove(connection.Id, out Task? _);
                        reported.SetResult();
                    }
                },
                TaskScheduler.Default
            );
            // The broker logs the connection's arrival and end itself (BrokerLog), through the same non-blocking sink.
        }
        broker.ConnectionAccepted += Track;
        Interlocked.Exchange(ref watermark, broker.AcceptedConnections);
        foreach (BrokerConnection connection in broker.Connections)
            if (connection.Id <= watermark)
                Track(connection); // accepted before the handler was in place

        // The start-up lines go through the sink's own logger, whatever --log-level says (they carry the port), queued
        // ahead of any connection's lines: the writer starts after them.
        ILogger startup = sink.CreateLogger(CliLog.Category);
        CliLog.BrokerListening(startup, broker.Endpoint);
        CliLog.BrokerSettings(
            startup,
            run.FrameMax,
            run.Heartbeat,
            run.Strictness.ToString(),
            run.Record is null ? "" : $", recording to {run.Record.FullName}"
        );
        sink.Start();
        try
        {
            await Task.Delay(Timeout.Infinite, stop);
        }
        catch (OperationCanceledException)
        {
            CliLog.BrokerStopping(log);
        }

        await broker.DisposeAsync(); // closes every connection and waits for their loops
        await Task.WhenAll(pending.Values);
        int exitCode = ExitCodes.Ok;
        if (recorder is not null)
        {
            try
            {
                await recorder.DisposeAsync();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                await error.WriteLineAsync($"broker: recording to {run.Record!.FullName} failed: {e.Message}");
                exitCode = ExitCodes.Violation;
            }
        }

        IReadOnlyList<BrokerConnection> connections = broker.Connections;
        if (run.Pcap is not null)
        {
            try
            {
                PcapExporter.WriteFile(run.Pcap.FullName, connections.Select(c => FrameLogSnapshot.From(c.Log)));
                CliLog.PcapWritten(log, run.Pcap.FullName);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                await error.WriteLineAsync($"broker: writing the pcap {run.Pcap.FullName} failed: {e.Message}");
                exitCode = ExitCodes.Violation;
            }
        }
        CliLog.BrokerStopped(
            log,
            broker.AcceptedConnections,
            Interlocked.Read(ref framesRecorded),
            run.Record is null ? "" : $" recorded to {run.Record.FullName}"
        );
        return exitCode;
    }

    /// <summary>Completes the connection's recording and logs the findings it reported without closing anything (the
    /// broker logged those that closed a channel or the connection as they happened, and the connection's
    /// end).</summary>
    private static void OnEnded(BrokerConnection connection, JsonLinesLiveRecorder? recorder, ILogger log)
    {
        string reason = connection.CloseInfo?.ToString() ?? "ended";
        recorder?.Complete(connection.Log, reason);
        if (!log.IsEnabled(LogLevel.Warning))
            return;
        List<ProtocolFinding> reported = [.. connection.Log.Findings().Where(f => !f.ClosedConnection)];
        if (reported.Count == 0)
            return;
        var text = new System.Text.StringBuilder();
        foreach (ProtocolFinding f in reported.Take(CliLog.MaxFindingsListed))
            text.Append(
                CultureInfo.InvariantCulture,
                $"\n  {f.ReplyCode} {f.Rule} at frame #{f.Sequence}: {f.Message}"
            );
        if (reported.Count > CliLog.MaxFindingsListed)
            text.Append(
                CultureInfo.InvariantCulture,
                $"\n  ... and {reported.Count - CliLog.MaxFindingsListed} more (--record has them all)"
            );
        CliLog.FindingsReported(log, connection.Id, reported.Count, text.ToString());
    }
}
