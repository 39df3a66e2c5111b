using System.CommandLine;
using System.Net;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Toxiproxy;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance proxy --listen 127.0.0.1:PORT --upstream HOST:PORT [--api 127.0.0.1:8474] [--name amqp]
/// [--plan plan.json]</c>: runs the embedded TCP fault proxy with its Toxiproxy-compatible HTTP API until
/// Ctrl+C, so any Toxiproxy client (or toxiproxy-cli) can add toxics while a client talks through it.
/// </summary>
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
        var command = new Command("proxy", "Run the TCP fault proxy with a Toxiproxy-compatible HTTP API until Ctrl+C.")
        {
            listen, upstream, api, name, plan,
        };
        command.SetAction((parse, ct) => RunAsync(
            parse.GetValue(listen)!, parse.GetValue(upstream)!, parse.GetValue(api)!, parse.GetValue(name)!, parse.GetValue(plan),
            parse.InvocationConfiguration.Output, parse.InvocationConfiguration.Error, ct));
        return command;
    }

    /// <summary>Starts the API and the proxy, prints where they listen, waits for <paramref name="cancellationToken"/>,
    /// then stops both. Returns 0 on a clean stop, 2 on bad input (one line on <paramref name="error"/> naming the address or file).</summary>
    internal static async Task<int> RunAsync(string listen, string upstream, string api, string name, FileInfo? planFile,
        TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        if (!IPEndPoint.TryParse(api, out IPEndPoint? apiEndpoint) || !IPAddress.IsLoopback(apiEndpoint.Address))
        {
            return CliApplication.BadInput(error, $"proxy: --api {api}: expected a loopback address such as 127.0.0.1:8474.");
        }
        FaultPlanToxics.Mapping? toxics = null;
        if (planFile is not null)
        {
            try
            {
                toxics = FaultPlanToxics.Map(FaultPlan.FromJson(await File.ReadAllTextAsync(planFile.FullName, cancellationToken)));
            }
            catch (Exception e) when (e is FormatException or IOException or UnauthorizedAccessException)
            {
                return CliApplication.BadInput(error, $"proxy: --plan {planFile.FullName}: {e.Message}");
            }
        }

        EmbeddedToxiproxy server;
        try
        {
            server = await EmbeddedToxiproxy.StartAsync(apiEndpoint, cancellationToken);
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
                proxy = server.Registry.CreateProxy(new ProxyConfig { Name = name, Listen = listen, Upstream = upstream, Enabled = true });
                foreach (ToxicConfig toxic in toxics?.Toxics ?? [])
                    server.Registry.GetProxy(name).AddToxic(toxic);
            }
            catch (ToxiproxyApiException e)
            {
                return CliApplication.BadInput(error, $"proxy: {name} ({listen} -> {upstream}): {e.Message}");
            }
            await output.WriteLineAsync($"proxy '{proxy.Name}' listening on {proxy.Listen} -> {proxy.Upstream}");
            await output.WriteLineAsync($"Toxiproxy API on {server.ApiUrl}");
            foreach (string note in toxics?.Unmapped ?? [])
                await output.WriteLineAsync($"plan: {note}");
            await output.WriteLineAsync("Press Ctrl+C to stop.");
            await output.FlushAsync(CancellationToken.None);
            try
            {
                await Task.Delay(Timeout.Infinite, cancellationToken);
            }
            catch (OperationCanceledException) { } // Ctrl+C or SIGTERM: the proxy stops as asked
            await output.WriteLineAsync("stopping proxy");
        }
        return ExitCodes.Ok;
    }
}
