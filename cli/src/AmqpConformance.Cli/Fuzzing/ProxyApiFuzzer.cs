using System.Diagnostics;
using System.Net.Http.Headers;
using System.Text.Json;
using AmqpConformance.Properties;
using AmqpConformance.Toxiproxy;

namespace AmqpConformance.Cli.Fuzzing;

/// <summary>
/// Fuzzes the Toxiproxy-compatible HTTP API: an <see cref="EmbeddedToxiproxy"/> on a free loopback port gets
/// <see cref="ApiRequestGenerator"/> requests from <see cref="FuzzBudget.Parallel"/> workers at once.
/// </summary>
/// <remarks>Failures: an answer of 500 or more; no answer within <see cref="FuzzBudget.HangBound"/> (a hang); a proxy
/// or toxic whose creation succeeded but which cannot then be read back by its name; an error of the API (4xx other
/// than the server's own 413/414/431 limits) without its JSON body <c>{"error","status"}</c>. The registry is trimmed
/// to 20 proxies between requests, so listeners do not pile up.</remarks>
internal static class ProxyApiFuzzer
{
    private const int MaxProxies = 20;

    public static async Task<FuzzReport> RunAsync(
        FuzzBudget budget,
        UnhandledExceptionMonitor monitor,
        CancellationToken cancellationToken
    )
    {
        var report = new FuzzReport
        {
            Target = "proxy-api",
            Seed = budget.Seed,
            Unit = "requests",
        };
        report.HeapBefore = GC.GetTotalMemory(forceFullCollection: true);
        report.RssBefore = Environment.WorkingSet;
        await using var memory = new MemorySampler();
        await using (
            EmbeddedToxiproxy server = await EmbeddedToxiproxy
                .StartAsync(cancellationToken: cancellationToken)
                .ConfigureAwait(false)
        )
        {
            using var http = new HttpClient { BaseAddress = server.ApiUrl, Timeout = Timeout.InfiniteTimeSpan };
            var watch = Stopwatch.StartNew();
            long next = -1;
            await Task.WhenAll(
                    Enumerable
                        .Range(0, budget.Parallel)
                        .Select(_ =>
                            Task.Run(
                                async () =>
                                {
                                    while (
                                        !cancellationToken.IsCancellationRequested && watch.Elapsed < budget.Duration
                                    )
                                    {
                                        long index = Interlocked.Increment(ref next);
                                        if (index >= budget.Units)
                                            break;
                                        int seed = budget.CaseSeed(index);
                                        ApiRequest request = ApiRequestGenerator.Next(
                                            new Random(seed),
                                            server.ApiUrl.Port
                                        );
                                        await RunCaseAsync(
                                                http,
                                                server,
                                                request,
                                                budget.HangBound,
                                                report,
                                                $"request {index} (seed {budget.Seed}, case seed {seed})"
                                            )
                                            .ConfigureAwait(false);
                                        Trim(server.Registry);
                                    }
                                },
                                CancellationToken.None
                            )
                        )
                )
                .ConfigureAwait(false);
            report.Elapsed = watch.Elapsed;
            report.Sent = report.Cases = Math.Min(Interlocked.Read(ref next) + 1, budget.Units);
        }
        foreach (string seen in monitor.Flush())
            report.Add(report.Unhandled, seen);
        report.RssPeak = memory.Peak;
        report.HeapAfter = GC.GetTotalMemory(forceFullCollection: true);
        report.RssAfter = Environment.WorkingSet;
        return report;
    }

    private static async Task RunCaseAsync(
        HttpClient http,
        EmbeddedToxiproxy server,
        ApiRequest request,
        TimeSpan bound,
        FuzzReport report,
        string name
    )
    {
        (int status, string body)? answer = await SendAsync(
                http,
                request.Method,
                request.Path,
                request.Body,
                request.ContentType,
                bound
            )
            .ConfigureAwait(false);
        if (answer is not { } a)
        {
            report.Add(report.Hangs, $"{name}: no answer within {bound.TotalSeconds:0} s to {request}");
            return;
        }
        report.Count(a.status.ToString(System.Globalization.CultureInfo.InvariantCulture));
        if (a.status >= 500)
        {
            report.Add(report.ServerErrors, $"{name}: {a.status} {a.body} for {request}");
            return;
        }
        if (
            a.status is >= 400 and not (413 or 414 or 431)
            && request.Method != "HEAD"
            && !IsErrorBody(a.body, a.status)
        )
            report.Add(
                report.ContractViolations,
                $"{name}: {a.status} without a JSON error body ({a.body}) for {request}"
            );
        // Pool names ("p0".."p3", "t0".."t3") are created and deleted by every worker; the odd ones are what can break.
        if (
            a.status is 200 or 201
            && request.CreatesProxy is not null
            && request.Path == "/proxies"
            && TryName(a.body) is { } created
            && !IsPoolName(created)
        )
            await CheckReadableAsync(
                    http,
                    $"proxies/{Uri.EscapeDataString(created)}",
                    bound,
                    report,
                    name,
                    request,
                    stillThere: () => server.Registry.Proxies.ContainsKey(created)
                )
                .ConfigureAwait(false);
        if (
            a.status is 200 or 201
            && request.CreatesToxicOn is { } on
            && TryName(a.body) is { } toxic
            && !IsPoolName(toxic)
        )
            await CheckReadableAsync(
                    http,
                    $"{request.Path.TrimStart('/')}/{Uri.EscapeDataString(toxic)}",
                    bound,
                    report,
                    name,
                    request,
                    stillThere: () =>
                        server.Registry.Proxies.TryGetValue(on, out FaultProxy? p) && p.FindToxic(toxic) is not null
                )
                .ConfigureAwait(false);
    }

    /// <summary>What was created must be readable by its name: GET must answer 200, or 404 only when another worker
    /// deleted it meanwhile (<paramref name="stillThere"/> says it is gone).</summary>
    private static async Task CheckReadableAsync(
        HttpClient http,
        string path,
        TimeSpan bound,
        FuzzReport report,
        string name,
        ApiRequest request,
        Func<bool> stillThere
    )
    {
        (int status, string body)? check = await SendAsync(http, "GET", path, null, null, bound).ConfigureAwait(false);
        if (check is { status: 200 } || (check is { status: 404 } && !stillThere()))
            return;
        report.Add(
            report.ContractViolations,
            $"{name}: created by {request}, but GET /{path} answered {check?.status.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "nothing"} {check?.body}"
        );
    }

    private static async Task<(int Status, string Body)?> SendAsync(
        HttpClient http,
        string method,
        string path,
        byte[]? body,
        string? contentType,
        TimeSpan bound
    )
    {
        using var timeout = new CancellationTokenSource(bound);
        using var message = new HttpRequestMessage(
            new HttpMethod(method),
            new Uri(http.BaseAddress!, path.TrimStart('/'))
        );
        if (body is not null)
        {
            message.Content = new ByteArrayContent(body);
            message.Content.Headers.ContentType = contentType is null ? null : MediaTypeHeaderValue.Parse(contentType);
        }
        try
        {
            using HttpResponseMessage response = await http.SendAsync(message, timeout.Token).ConfigureAwait(false);
            string text = await response.Content.ReadAsStringAsync(timeout.Token).ConfigureAwait(false);
            return ((int)response.StatusCode, text);
        }
        catch (OperationCanceledException) when (timeout.IsCancellationRequested)
        {
            return null;
        }
    }

    private static bool IsPoolName(string name) =>
        name.Length == 2 && name[0] is 'p' or 't' && char.IsAsciiDigit(name[1]);

    private static bool IsErrorBody(string body, int status)
    {
        try
        {
            using JsonDocument doc = JsonDocument.Parse(body);
            JsonElement root = doc.RootElement;
            return root.ValueKind == JsonValueKind.Object
                && root.TryGetProperty("error", out JsonElement e)
                && e.ValueKind == JsonValueKind.String
                && root.TryGetProperty("status", out JsonElement s)
                && s.TryGetInt32(out int code)
                && code == status;
        }
        catch (JsonException)
        {
            return false;
        }
    }

    private static string? TryName(string body)
    {
        try
        {
            using JsonDocument doc = JsonDocument.Parse(body);
            return
                doc.RootElement.ValueKind == JsonValueKind.Object
                && doc.RootElement.TryGetProperty("name", out JsonElement n)
                && n.ValueKind == JsonValueKind.String
                ? n.GetString()
                : null;
        }
        catch (JsonException)
        {
            return null;
        }
    }

    private static void Trim(FaultProxyRegistry registry)
    {
        IReadOnlyDictionary<string, FaultProxy> proxies = registry.Proxies;
        if (proxies.Count <= MaxProxies)
            return;
        foreach (string name in proxies.Keys.Skip(MaxProxies))
        {
            try
            {
                registry.DeleteProxy(name);
            }
            catch (ToxiproxyApiException)
            { /* another worker deleted it */
            }
        }
    }
}
