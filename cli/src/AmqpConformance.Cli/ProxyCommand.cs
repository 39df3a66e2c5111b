using System.CommandLine;
using System.Net;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Toxiproxy;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance proxy --listen 127.0.0.1:PORT --upstream HOST:PORT [--api 127.0.0.1:8474] [--name amqp]
/// [--plan plan.json]</c>: runs the embedded TCP fault proxy with its Toxiproxy-compatible HTTP API until
/// Ctrl+C, so any Toxiproxy client (or toxiproxy-cli) can add toxics while a client talks through it.
/// </summary>
/// <remarks>Everything it prints once it listens goes through a <see cref="BoundedConsoleLoggerProvider"/> at
/// <c>--log-level</c> in <c>--log-format</c>: a console that stops reading loses lines, never stalls a connection or
/// the stop.</remarks>
internal static class ProxyCommand
{
    /// <summary>The command with its options.</summary>
    public static Command Create()
    {
        var listen = new Option<string>("--listen")
        {
            Description = "Loopback address the proxy listens on (port 0 = any free port).",
            Required = true,
        };
        var upstream = new Option<string>("--upstream")
        {
            Description = "host:port the proxy forwards to (the broker).",
            Required = true,
        };
        var api = new Option<string>("--api")
        {
            Description = "Loopback address of the Toxiproxy-compatible HTTP API.",
            DefaultValueFactory = _ => "127.0.0.1:8474",
        };
        var name = new Option<string>("--name")
        {
            Description = "The proxy's name in the API.",
            DefaultValueFactory = _ => "amqp",
        };
        var plan = new Option<FileInfo?>("--plan")
        {
            Description = "A FaultPlan JSON file whose faults are added as toxics at start.",
        };
        Option<string> logLevel = LogOptions.LevelOption();
        Option<string> logFormat = LogOptions.FormatOption();
        var command = new Command("proxy", "Run the TCP fault proxy with a Toxiproxy-compatible HTTP API until Ctrl+C.")
        {
            listen,
            upstream,
            api,
            name,
            plan,
            logLevel,
            logFormat,
        };
        command.SetAction(
            (parse, ct) =>
                RunAsync(
                    parse.GetValue(listen)!,
                    parse.GetValue(upstream)!,
                    parse.GetValue(api)!,
                    parse.GetValue(name)!,
                    parse.GetValue(plan),
                    LogOptions.ParseLevel(parse.GetValue(logLevel)!),
                    LogOptions.ParseFormat(parse.GetValue(logFormat)!),
                    parse.InvocationConfiguration.Output,
                    parse.InvocationConfiguration.Error,
                    ct
                )
        );
        return command;
    }

    /// <summary>Runs the proxy as
    /// <see cref="RunAsync(string, string, string, string, FileInfo?, BoundedConsoleLoggerProvider, ILoggerFactory, TextWriter, CancellationToken)"/>
    /// does, logging at <paramref name="level"/> and above in <paramref name="format"/> to <paramref name="output"/>
    /// through a bounded sink, drained (for a bounded time) before it returns.</summary>
    internal static async Task<int> RunAsync(
        string listen,
        string upstream,
        string api,
        string name,
        FileInfo? planFile,
        LogLevel level,
        LogFormat format,
        TextWriter output,
        TextWriter error,
        CancellationToken cancellationToken
    )
    {
        using var sink = new BoundedConsoleLoggerProvider(output, format);
        using ILoggerFactory loggers = LogOptions.CreateFactory(sink, level);
        int exitCode = await RunAsync(listen, upstream, api, name, planFile, sink, loggers, error, cancellationToken);
        await LogOptions.CompleteAsync(sink, "proxy", error);
        return exitCode;
    }

    /// <summary>Starts the API and the proxy, prints where they listen, waits for <paramref name="cancellationToken"/>,
    /// then stops both. Returns 0 on a clean stop, 2 on bad input (one line on <paramref name="error"/> naming the
    /// address or file).</summary>
    private static async Task<int> RunAsync(
        string listen,
        string upstream,
        string api,
        string name,
        FileInfo? planFile,
        BoundedConsoleLoggerProvider sink,
        ILoggerFactory loggers,
        TextWriter error,
        CancellationToken cancellationToken
    )
    {
        if (!IPEndPoint.TryParse(api, out IPEndPoint? apiEndpoint) || !IPAddress.IsLoopback(apiEndpoint.Address))
        {
            return CliApplication.BadInput(
                error,
                $"proxy: --api {api}: expected a loopback address such as 127.0.0.1:8474."
            );
        }
        FaultPlanToxics.Mapping? toxics = null;
        if (planFile is not null)
        {
            try
            {
                toxics = FaultPlanToxics.Map(
                    FaultPlan.FromJson(await File.ReadAllTextAsync(planFile.FullName, cancellationToken))
                );
            }
            catch (Exception e) when (e is FormatException or IOException or UnauthorizedAccessException)
            {
                return CliApplication.BadInput(error, $"proxy: --plan {planFile.FullName}: {e.Message}");
            }
        }

        EmbeddedToxiproxy server;
        try
        {
            server = await EmbeddedToxiproxy.StartAsync(apiEndpoint, loggers, cancellationToken);
        }
        catch (IOException e)
        {
            return CliApplication.BadInput(error, $"proxy: --api {api}: cannot listen: {e.Message}");
        }
        await using (server)
        {
            ProxyConfig proxy;
            try
            {
                proxy = server.Registry.CreateProxy(
                    new ProxyConfig
                    {
                        Name = name,
                        Listen = listen,
                        Upstream = upstream,
                        Enabled = true,
                    }
                );
                foreach (ToxicConfig toxic in toxics?.Toxics ?? [])
                    server.Registry.GetProxy(name).AddToxic(toxic);
            }
            catch (ToxiproxyApiException e)
            {
                return CliApplication.BadInput(error, $"proxy: {name} ({listen} -> {upstream}): {e.Message}");
            }
            // The start-up lines go through the sink's own logger, whatever --log-level says (they carry the ports),
            // queued ahead of any connection's lines: the writer starts after them.
            ILogger startup = sink.CreateLogger(CliLog.Category);
            CliLog.ProxyListening(startup, proxy.Name, proxy.Listen, proxy.Upstream);
            CliLog.ApiListening(startup, server.ApiUrl);
            foreach (string note in toxics?.Unmapped ?? [])
                CliLog.PlanNote(startup, note);
            CliLog.ProxyReady(startup);
            sink.Start();
            try
            {
                await Task.Delay(Timeout.Infinite, cancellationToken);
            }
            catch (OperationCanceledException) { } // Ctrl+C or SIGTERM: the proxy stops as asked
            CliLog.ProxyStopping(loggers.CreateLogger(CliLog.Category));
        }
        return ExitCodes.Ok;
    }
}
