using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace AmqpConformance.Toxiproxy;

/// <summary>The HTTP routes of <see cref="EmbeddedToxiproxy"/>, shaped like Toxiproxy's api.go. Every client error is a
/// 4xx with <c>{"error","status","field"}</c>; a 500 (same shape) means a bug of the server, never bad input.</summary>
internal static class ToxiproxyApi
{
    public static void Map(WebApplication app, FaultProxyRegistry server)
    {
        // Routing's own 404 and 405 carry no body: give them the API's error shape.
        app.Use(
            async (context, next) =>
            {
                await next(context).ConfigureAwait(false);
                if (!context.Response.HasStarted && context.Response.StatusCode is 404 or 405)
                {
                    string message = context.Response.StatusCode == 404 ? "not found" : "method not allowed";
                    await Error(new ToxiproxyApiException(context.Response.StatusCode, message, "path"))
                        .ExecuteAsync(context)
                        .ConfigureAwait(false);
                }
            }
        );

        app.MapGet("/version", () =>
            Results.Text($"{{\"version\": \"{EmbeddedToxiproxy.Version}\"}}\n", "application/json;charset=utf-8")
        );

        app.MapGet("/proxies", () =>
            Handle(() => Json(server.Proxies.Values.ToDictionary(p => p.Name, p => p.ToConfig())))
        );

        app.MapPost("/proxies", (HttpRequest request) => Handle(request, body =>
            {
                RequireObject(body, "body");
                return Json(server.CreateProxy(ReadProxy(body, "")), StatusCodes.Status201Created);
            }));

        app.MapPost("/populate", (HttpRequest request) => Handle(request, body =>
            {
                if (body.ValueKind != JsonValueKind.Array)
                    throw ToxiproxyApiException.BadRequest("expected a JSON array of proxies");
                var configs = new List<ProxyConfig>();
                int i = 0;
                foreach (JsonElement e in body.EnumerateArray())
                {
                    RequireObject(e, $"[{i}]");
                    configs.Add(ReadProxy(e, $"[{i++}]."));
                }
                return Json(new { proxies = server.Populate(configs) }, StatusCodes.Status201Created);
            }));

        app.MapGet("/proxies/{proxy}", (string proxy) => Handle(() => Json(server.GetProxy(proxy).ToConfig())));

        app.MapMethods("/proxies/{proxy}", ["POST", "PATCH"], (string proxy, HttpRequest request) =>
            Handle(request, body =>
            {
                RequireObject(body, "body");
                string? listen = OptionalString(body, "listen");
                string? upstream = OptionalString(body, "upstream");
                bool? enabled =
                    body.TryGetProperty("enabled", out JsonElement e) && e.ValueKind != JsonValueKind.Null
                        ? e.ValueKind is JsonValueKind.True or JsonValueKind.False
                            ? e.GetBoolean()
                            : throw ToxiproxyApiException.Invalid("enabled", "enabled must be true or false")
                        : null;
                return Json(server.UpdateProxy(proxy, listen, upstream, enabled));
            })
        );

        app.MapDelete("/proxies/{proxy}", (string proxy) => Handle(() =>
            {
                server.DeleteProxy(proxy);
                return Results.NoContent();
            }));

        app.MapGet("/proxies/{proxy}/toxics", (string proxy) => Handle(() => Json(server.GetProxy(proxy).Toxics())));

        app.MapPost("/proxies/{proxy}/toxics", (string proxy, HttpRequest request) => Handle(request, body =>
            {
                FaultProxy p = server.GetProxy(proxy);
                return Json(p.AddToxic(FaultProxyRegistry.ParseNewToxic(body)));
            }));

        app.MapGet("/proxies/{proxy}/toxics/{toxic}", (string proxy, string toxic) =>
            Handle(() => Json(server.GetProxy(proxy).FindToxic(toxic) ?? throw ToxiproxyApiException.ToxicNotFound()))
        );

        app.MapMethods(
            "/proxies/{proxy}/toxics/{toxic}",
            ["POST", "PATCH"],
            (string proxy, string toxic, HttpRequest request) => Handle(request, body =>
                {
                    RequireObject(body, "body");
                    FaultProxy p = server.GetProxy(proxy);
                    IReadOnlyDictionary<string, long>? attributes = null;
                    float? toxicity = null;
                    if (body.TryGetProperty("attributes", out JsonElement a) && a.ValueKind != JsonValueKind.Null)
                    {
                        RequireObject(a, "attributes");
                        attributes = Read<Dictionary<string, long>>(a, "attributes", "attributes.");
                    }
                    if (body.TryGetProperty("toxicity", out JsonElement t) && t.ValueKind != JsonValueKind.Null)
                        toxicity =
                            t.ValueKind == JsonValueKind.Number
                            && t.TryGetSingle(out float value)
                            && float.IsFinite(value)
                                ? value
                                : throw ToxiproxyApiException.Invalid(
                                    "toxicity",
                                    "toxicity must be a number between 0 and 1"
                                );
                    return Json(p.UpdateToxic(toxic, attributes, toxicity));
                })
        );

        app.MapDelete("/proxies/{proxy}/toxics/{toxic}", (string proxy, string toxic) => Handle(() =>
            {
                server.GetProxy(proxy).RemoveToxic(toxic);
                return Results.NoContent();
            }));

        app.MapPost("/reset", () => Handle(() =>
            {
                server.Reset();
                return Results.NoContent();
            }));
    }

    private static IResult Json(object value, int status = StatusCodes.Status200OK) =>
        Results.Text(JsonSerializer.Serialize(value, ToxiproxyJson.Options), "application/json", statusCode: status);

    private static IResult Error(ToxiproxyApiException e) =>
        Results.Text(
            JsonSerializer.Serialize(
                e.Field is null
                    ? (object)new { error = e.Message, status = e.Status }
                    : new
                    {
                        error = e.Message,
                        status = e.Status,
                        field = e.Field,
                    }
            ),
            "application/json",
            statusCode: e.Status
        );

    /// <summary>A proxy from a JSON object: its fields must have the right JSON types; <c>enabled</c> defaults to
    /// true.</summary>
    private static ProxyConfig ReadProxy(JsonElement body, string fieldPrefix)
    {
        ProxyConfig config = Read<ProxyConfig>(
            body,
            fieldPrefix.Length == 0 ? "body" : fieldPrefix.TrimEnd('.'),
            fieldPrefix
        );
        if (!body.TryGetProperty("enabled", out _))
            config = config with { Enabled = true };
        return config;
    }

    private static void RequireObject(JsonElement element, string field)
    {
        if (element.ValueKind != JsonValueKind.Object)
            throw ToxiproxyApiException.BadRequest(
                $"{field} must be a JSON object, not {element.ValueKind.ToString().ToLowerInvariant()}",
                field
            );
    }

    private static string? OptionalString(JsonElement body, string name) =>
        !body.TryGetProperty(name, out JsonElement value) || value.ValueKind == JsonValueKind.Null ? null
        : value.ValueKind == JsonValueKind.String ? value.GetString()
        : throw ToxiproxyApiException.Invalid(name, $"{name} must be a string");

    /// <summary>Deserializes <paramref name="element"/>; a mismatch is a 400 naming <paramref name="prefix"/> + the
    /// JSON path, or <paramref name="field"/> when the element itself is wrong.</summary>
    private static T Read<T>(JsonElement element, string field, string prefix = "")
    {
        try
        {
            return element.Deserialize<T>(ToxiproxyJson.Options)
                ?? throw ToxiproxyApiException.BadRequest("null", field);
        }
        catch (JsonException e)
        {
            throw ToxiproxyApiException.FromJson(e, field, prefix);
        }
    }

    /// <summary>Runs a handler: API errors become their status; anything else is the server's own failure, answered
    /// with a 500 in the same JSON shape (never an empty body).</summary>
    private static IResult Handle(Func<IResult> action)
    {
        try
        {
            return action();
        }
        catch (ToxiproxyApiException e)
        {
            return Error(e);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            return Error(new ToxiproxyApiException(500, $"internal error: {e.GetType().Name}: {e.Message}", null));
        }
    }

    private static async Task<IResult> Handle(HttpRequest request, Func<JsonElement, IResult> action)
    {
        JsonElement body;
        try
        {
            using JsonDocument doc = await JsonDocument
                .ParseAsync(request.Body, cancellationToken: request.HttpContext.RequestAborted)
                .ConfigureAwait(false);
            body = doc.RootElement.Clone();
        }
        catch (JsonException e)
        {
            return Error(ToxiproxyApiException.BadRequest(e.Message));
        }
        catch (BadHttpRequestException e)
        {
            return Error(new ToxiproxyApiException(e.StatusCode, "bad request body: " + e.Message, "body"));
        }
        return Handle(() => action(body));
    }
}
