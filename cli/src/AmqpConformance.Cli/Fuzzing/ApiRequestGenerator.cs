using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;

namespace AmqpConformance.Cli.Fuzzing;

/// <summary>One HTTP request for the Toxiproxy API fuzzer.</summary>
/// <param name="Method">GET, POST, PATCH, DELETE, PUT, HEAD or OPTIONS.</param>
/// <param name="Path">The path, segments already percent-encoded.</param>
/// <param name="Body">The body bytes, or null for none.</param>
/// <param name="ContentType">The content type sent with a body, or null for none.</param>
/// <param name="CreatesProxy">The name of the proxy this request creates if it succeeds (POST /proxies), to check it
/// can be read back.</param>
/// <param name="CreatesToxicOn">The proxy a toxic is added to if it succeeds (POST /proxies/{p}/toxics).</param>
internal sealed record ApiRequest(
    string Method,
    string Path,
    byte[]? Body,
    string? ContentType,
    string? CreatesProxy,
    string? CreatesToxicOn
)
{
    public override string ToString()
    {
        string body = Body is null ? "" : " " + Encoding.UTF8.GetString(Body);
        return $"{Method} {Path}{(body.Length > 300 ? body[..300] + "..." : body)}";
    }
}

/// <summary>
/// Random and mutated requests for Toxiproxy's HTTP API, from a seeded <see cref="Random"/>: every route and some that
/// do not exist, every method, names from a small pool (so requests meet each other's proxies) or odd ones (long,
/// unicode, '/', "..", control characters, percent signs), and bodies that start valid (proxies, toxics of every type,
/// populate lists, updates) and are then broken (values of the wrong JSON type, huge and negative numbers, arrays for
/// objects, deep nesting, dropped keys, truncated or garbage text).
/// </summary>
internal static class ApiRequestGenerator
{
    private static readonly string[] Types =
    [
        "latency",
        "bandwidth",
        "slicer",
        "timeout",
        "reset_peer",
        "limit_data",
        "slow_close",
    ];
    private static readonly string[] Attributes =
    [
        "latency",
        "jitter",
        "rate",
        "average_size",
        "size_variation",
        "delay",
        "timeout",
        "bytes",
    ];

    /// <summary>A request; <paramref name="apiPort"/> is the API's own port (a listen address already taken).</summary>
    public static ApiRequest Next(Random random, int apiPort)
    {
        string proxy = Name(random, "p");
        string toxic = Name(random, "t");
        string path;
        Func<JsonNode?>? body = null;
        string? createsProxy = null,
            createsToxicOn = null;
        int route = random.Next(10);
        // Mostly a method the route takes, so requests get past routing; sometimes any.
        string method =
            random.Next(4) == 0
                ? Pick(random, "GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS")
                : route switch
                {
                    0 => "GET",
                    1 => Pick(random, "GET", "POST", "POST"),
                    2 or 3 => "POST",
                    4 or 7 or 8 => Pick(random, "GET", "POST", "PATCH", "DELETE"),
                    5 or 6 => Pick(random, "GET", "POST", "POST"),
                    _ => Pick(random, "GET", "POST"),
                };
        switch (route)
        {
            case 0:
                path = "/version";
                break;
            case 1:
                path = "/proxies";
                body = () => ProxyBody(random, proxy, apiPort);
                if (method == "POST")
                    createsProxy = proxy;
                break;
            case 2:
                path = "/populate";
                body = () =>
                    new JsonArray([
                        .. Enumerable
                            .Range(0, random.Next(0, 4))
                            .Select(_ => ProxyBody(random, Name(random, "p"), apiPort)),
                    ]);
                break;
            case 3:
                path = "/reset";
                break;
            case 4:
                path = $"/proxies/{Escape(proxy)}";
                body = () => UpdateBody(random, apiPort);
                break;
            case 5:
            case 6:
                path = $"/proxies/{Escape(proxy)}/toxics";
                body = () => ToxicBody(random, toxic);
                if (method == "POST")
                    createsToxicOn = proxy;
                break;
            case 7:
            case 8:
                path = $"/proxies/{Escape(proxy)}/toxics/{Escape(toxic)}";
                body = () => ToxicUpdateBody(random);
                break;
            default:
                path = Pick(
                    random,
                    "/",
                    "/proxies/",
                    "/proxies//toxics",
                    $"/{Escape(proxy)}",
                    $"/proxies/{Escape(proxy)}/toxics/{Escape(toxic)}/more",
                    "/proxies/%2e%2e"
                );
                body = () => Any(random, 2);
                break;
        }
        byte[]? bytes = null;
        string? contentType = null;
        if (method is "POST" or "PATCH" or "PUT" || random.Next(10) == 0)
        {
            bytes = Mutate(random, body?.Invoke());
            contentType = Pick(random, "application/json", "application/json", "text/plain", null!);
        }
        return new ApiRequest(method, path, bytes, contentType, createsProxy, createsToxicOn);
    }

    private static string Name(Random random, string prefix) =>
        random.Next(12) switch
        {
            < 8 => prefix + random.Next(4).ToString(CultureInfo.InvariantCulture), // a small pool: requests meet each other's proxies
            8 => new string('n', Pick(random, 254, 255, 256, 300, 10_000)),
            9 => Pick(
                random,
                "a/b",
                "..",
                ".",
                "a\\b",
                "a%2Fb",
                "sp ace",
                "q?x",
                "h#x",
                "€uro",
                "\u0001ctl",
                "emoji😀",
                "\ud800lone",
                "latency_downstream"
            ),
            10 => "",
            _ => RandomText(random, random.Next(1, 40)),
        };

    private static string Escape(string segment)
    {
        if (segment.Length == 0)
            return "";
        try
        {
            return Uri.EscapeDataString(segment);
        }
        catch (UriFormatException)
        {
            return segment;
        } // a lone surrogate: send it as it is
    }

    private static JsonNode ProxyBody(Random random, string name, int apiPort)
    {
        var body = new JsonObject
        {
            ["name"] = name,
            ["listen"] = Listen(random, apiPort),
            ["upstream"] = Pick(
                random,
                "127.0.0.1:1",
                "localhost:5672",
                "127.0.0.1:65535",
                "nohost",
                ":1",
                "127.0.0.1:-1",
                "[::1]:2",
                RandomText(random, 10)
            ),
        };
        if (random.Next(3) == 0)
            body["enabled"] = random.Next(2) == 0;
        return body;
    }

    private static string Listen(Random random, int apiPort) =>
        random.Next(12) switch
        {
            < 6 => "127.0.0.1:0",
            6 => "localhost:0",
            7 => "[::ffff:127.0.0.1]:0",
            8 => $"127.0.0.1:{apiPort}", // taken
            9 => "[::1]:0",
            _ => Pick(
                random,
                "0.0.0.0:0",
                "10.0.0.1:0",
                "127.0.0.1:99999",
                "127.0.0.1",
                "nonsense",
                "",
                "127.0.0.1:0:0",
                "[::1]"
            ),
        };

    private static JsonNode UpdateBody(Random random, int apiPort)
    {
        var body = new JsonObject();
        if (random.Next(2) == 0)
            body["listen"] = Listen(random, apiPort);
        if (random.Next(2) == 0)
            body["upstream"] = Pick(random, "127.0.0.1:1", "127.0.0.1:2", "bad");
        if (random.Next(2) == 0)
            body["enabled"] = random.Next(2) == 0;
        return body;
    }

    private static JsonNode ToxicBody(Random random, string name)
    {
        string type = random.Next(10) == 0 ? RandomText(random, 6) : Pick(random, Types);
        var body = new JsonObject { ["type"] = type, ["attributes"] = AttributesBody(random) };
        if (random.Next(2) == 0)
            body["name"] = name;
        if (random.Next(2) == 0)
            body["stream"] = Pick(random, "upstream", "downstream", "sideways", "");
        if (random.Next(3) == 0)
            body["toxicity"] = Pick(random, 0.0, 0.5, 1.0, 1.5, -1.0);
        return body;
    }

    private static JsonNode ToxicUpdateBody(Random random)
    {
        var body = new JsonObject();
        if (random.Next(2) == 0)
            body["attributes"] = AttributesBody(random);
        if (random.Next(2) == 0)
            body["toxicity"] = Pick(random, 0.0, 0.25, 1.0, 2.0);
        return body;
    }

    private static JsonObject AttributesBody(Random random)
    {
        var attributes = new JsonObject();
        foreach (string a in Attributes)
            if (random.Next(3) == 0)
                attributes[a] = random.Next(8) switch
                {
                    0 => -5,
                    1 => long.MaxValue,
                    2 => (long)int.MaxValue + 1,
                    3 => 0,
                    _ => random.Next(0, 2000),
                };
        return attributes;
    }

    /// <summary>Any JSON value, nested at most <paramref name="depth"/> deep.</summary>
    private static JsonNode? Any(Random random, int depth) =>
        random.Next(depth > 0 ? 9 : 6) switch
        {
            0 => null,
            1 => JsonValue.Create(random.Next(2) == 0),
            2 => JsonValue.Create(random.Next(int.MinValue, int.MaxValue)),
            3 => JsonValue.Create(random.NextDouble() * 1e300),
            4 => JsonValue.Create(RandomText(random, random.Next(0, 20))),
            5 => JsonValue.Create(""),
            6 or 7 => new JsonArray([.. Enumerable.Range(0, random.Next(0, 4)).Select(_ => Any(random, depth - 1))]),
            _ => new JsonObject(
                Enumerable
                    .Range(0, random.Next(0, 4))
                    .Select(i =>
                        KeyValuePair.Create(
                            Pick(random, "name", "type", "attributes", "listen", "x") + i,
                            Any(random, depth - 1)
                        )
                    )
            ),
        };

    /// <summary>The body's text, usually broken one way or another.</summary>
    private static byte[] Mutate(Random random, JsonNode? body)
    {
        switch (random.Next(20)) // 9 in 20 broken, the rest sent as built
        {
            case 0:
                return [];
            case 1:
            {
                var garbage = new byte[random.Next(1, 200)];
                random.NextBytes(garbage);
                return garbage;
            }
            case 2:
                return Encoding.UTF8.GetBytes(new string('[', 5000) + new string(']', 5000)); // deeper than any parser allows
            case 3:
                return Encoding.UTF8.GetBytes("{\"name\":" + new string('9', 400) + "}");
            case 4:
                if (body is JsonObject o && o.Count > 0)
                {
                    // A value of the wrong type.
                    string key = o.ElementAt(random.Next(o.Count)).Key;
                    o[key] = Any(random, 2);
                }
                break;
            case 5:
                if (body is JsonObject d && d.Count > 0)
                    d.Remove(d.ElementAt(random.Next(d.Count)).Key);
                break;
            case 6:
                body = new JsonArray(body);
                break;
            case 7:
                body = Any(random, 3);
                break;
            case 8:
            {
                string text = Text(body);
                return Encoding.UTF8.GetBytes(text[..random.Next(text.Length + 1)]);
            }
        }
        return Encoding.UTF8.GetBytes(Text(body));
    }

    /// <summary>The JSON text; a body the serializer refuses (a lone surrogate) becomes one that escapes it, as a
    /// careless client would send it.</summary>
    private static string Text(JsonNode? body)
    {
        try
        {
            return body?.ToJsonString() ?? "null";
        }
        catch (ArgumentException)
        {
            return "{\"name\":\"\\ud800lone\",\"upstream\":\"127.0.0.1:1\"}";
        }
    }

    private static string RandomText(Random random, int length)
    {
        var text = new StringBuilder(length);
        for (int i = 0; i < length; i++)
            text.Append(random.Next(6) == 0 ? (char)random.Next(0x80, 0x3000) : (char)random.Next(0x20, 0x7F));
        return text.ToString();
    }

    private static T Pick<T>(Random random, params T[] choices) => choices[random.Next(choices.Length)];
}
