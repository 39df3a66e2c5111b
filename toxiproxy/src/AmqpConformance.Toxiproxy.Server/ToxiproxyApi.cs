using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;

namespace AmqpConformance.Toxiproxy;

/// <summary>The HTTP routes of <see cref="EmbeddedToxiproxy"/>, shaped like Toxiproxy's api.go.</summary>
internal static class ToxiproxyApi
{
    public static void Map(IEndpointRouteBuilder app, FaultProxyRegistry server)
    {
        app.MapGet("/version", () => Results.Text($"{{\"version\": \"{EmbeddedToxiproxy.Version}\"}}\n", "application/json;charset=utf-8"));

        app.MapGet("/proxies", () => Json(server.Proxies.Values.ToDictionary(p => p.Name, p => p.ToConfig())));

        app.MapPost("/proxies", (HttpRequest request) => Handle(request, body =>
        {
            ProxyConfig config = Read<ProxyConfig>(body);
            if (!body.TryGetProperty("enabled", out _)) config = config with { Enabled = true };
            return Json(server.CreateProxy(config), StatusCodes.Status201Created);
        }));

        app.MapPost("/populate", (HttpRequest request) => Handle(request, body =>
        {
            if (body.ValueKind != JsonValueKind.Array) throw ToxiproxyApiException.BadRequest("expected a JSON array of proxies");
            var configs = body.EnumerateArray().Select(e =>
                e.TryGetProperty("enabled", out _) ? Read<ProxyConfig>(e) : Read<ProxyConfig>(e) with { Enabled = true }).ToList();
            return Json(new { proxies = server.Populate(configs) }, StatusCodes.Status201Created);
        }));

        app.MapGet("/proxies/{proxy}", (string proxy) => Handle(() => Json(server.GetProxy(proxy).ToConfig())));

        app.MapMethods("/proxies/{proxy}", ["POST", "PATCH"], (string proxy, HttpRequest request) => Handle(request, body =>
        {
            string? listen = body.TryGetProperty("listen", out JsonElement l) && l.ValueKind == JsonValueKind.String ? l.GetString() : null;
            string? upstream = body.TryGetProperty("upstream", out JsonElement u) && u.ValueKind == JsonValueKind.String ? u.GetString() : null;
            bool? enabled = body.TryGetProperty("enabled", out JsonElement e) && e.ValueKind is JsonValueKind.True or JsonValueKind.False ? e.GetBoolean() : null;
            return Json(server.UpdateProxy(proxy, listen, upstream, enabled));
        }));

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

        app.MapGet("/proxies/{proxy}/toxics/{toxic}", (string proxy, string toxic) => Handle(() =>
            Json(server.GetProxy(proxy).FindToxic(toxic) ?? throw ToxiproxyApiException.ToxicNotFound())));

        app.MapMethods("/proxies/{proxy}/toxics/{toxic}", ["POST", "PATCH"], (string proxy, string toxic, HttpRequest request) => Handle(request, body =>
        {
            FaultProxy p = server.GetProxy(proxy);
            IReadOnlyDictionary<string, long>? attributes = null;
            float? toxicity = null;
            if (body.TryGetProperty("attributes", out JsonElement a)) attributes = Read<Dictionary<string, long>>(a);
            if (body.TryGetProperty("toxicity", out JsonElement t))
                toxicity = t.ValueKind == JsonValueKind.Number ? t.GetSingle() : throw ToxiproxyApiException.BadRequest("toxicity must be a number");
            return Json(p.UpdateToxic(toxic, attributes, toxicity));
        }));

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
        Results.Text(JsonSerializer.Serialize(new { error = e.Message, status = e.Status }), "application/json", statusCode: e.Status);

    private static T Read<T>(JsonElement element)
    {
        try { return element.Deserialize<T>(ToxiproxyJson.Options) ?? throw ToxiproxyApiException.BadRequest("null"); }
        catch (JsonException e) { throw ToxiproxyApiException.BadRequest(e.Message); }
    }

    private static IResult Handle(Func<IResult> action)
    {
        try { return action(); }
        catch (ToxiproxyApiException e) { return Error(e); }
    }

    private static async Task<IResult> Handle(HttpRequest request, Func<JsonElement, IResult> action)
    {
        JsonElement body;
        try
        {
            using JsonDocument doc = await JsonDocument.ParseAsync(request.Body, cancellationToken: request.HttpContext.RequestAborted);
            body = doc.RootElement.Clone();
        }
        catch (JsonException e)
        {
            return Error(ToxiproxyApiException.BadRequest(e.Message));
        }
        return Handle(() => action(body));
    }
}
