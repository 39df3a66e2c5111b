using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;

namespace AmqpConformance.Toxiproxy.Tests.Api;

/// <summary>The embedded API answers every client error with a 4xx and a JSON body naming the field, and never a 500
/// for what a client sent (<see cref="ToxiproxyValidation"/>).</summary>
[Trait("Area", "Faults")]
public sealed class ApiInputValidationTests : IAsyncLifetime
{
    private EmbeddedToxiproxy _server = null!;
    private HttpClient _http = null!;
    private ProxyConfig _proxy = null!;

    public async Task InitializeAsync()
    {
        _server = await EmbeddedToxiproxy.StartAsync();
        _http = new HttpClient { BaseAddress = _server.ApiUrl };
        _proxy = _server.Registry.CreateProxy(
            new ProxyConfig
            {
                Name = "p",
                Listen = "127.0.0.1:0",
                Upstream = "127.0.0.1:1",
            }
        );
        _server
            .Registry.GetProxy("p")
            .AddToxic(
                new ToxicConfig
                {
                    Name = "t",
                    Type = ToxicTypes.Latency,
                    Attributes = new Dictionary<string, long> { ["latency"] = 1 },
                }
            );
    }

    public async Task DisposeAsync()
    {
        _http.Dispose();
        await _server.DisposeAsync();
    }

    private async Task<(int Status, JsonElement Body)> SendAsync(string method, string path, string? body)
    {
        using var request = new HttpRequestMessage(new HttpMethod(method), path);
        if (body is not null)
            request.Content = new StringContent(body, Encoding.UTF8, "application/json");
        using HttpResponseMessage response = await _http.SendAsync(request);
        string text = await response.Content.ReadAsStringAsync();
        using JsonDocument doc = JsonDocument.Parse(text.Length == 0 ? "null" : text);
        return ((int)response.StatusCode, doc.RootElement.Clone());
    }

    [Theory]
    [InlineData("POST", "/proxies", "[]", 400, "body")]
    [InlineData("POST", "/proxies", "[{\"name\":\"x\"}]", 400, "body")]
    [InlineData("POST", "/proxies/p", "[1,2]", 400, "body")]
    [InlineData("POST", "/proxies/p/toxics", "[]", 400, "body")]
    [InlineData("POST", "/proxies/p/toxics/t", "[]", 400, "body")]
    [InlineData("PATCH", "/proxies/p/toxics/t", "\"text\"", 400, "body")]
    [InlineData("POST", "/populate", "[[1]]", 400, "[0]")]
    [InlineData(
        "POST",
        "/populate",
        "[{\"name\":\"a\",\"upstream\":\"127.0.0.1:1\"},{\"upstream\":\"127.0.0.1:1\"}]",
        400,
        "[1].name"
    )]
    [InlineData("POST", "/populate", "{}", 400, "body")]
    [InlineData("POST", "/proxies", "", 400, "body")]
    [InlineData("POST", "/proxies", "{\"name\":\"x\"", 400, "body")]
    [InlineData(
        "POST",
        "/proxies",
        "{\"name\":\"x\",\"upstream\":\"127.0.0.1:1\",\"listen\":\"0.0.0.0:0\"}",
        400,
        "listen"
    )]
    [InlineData("POST", "/proxies", "{\"name\":\"x\",\"upstream\":\"127.0.0.1:99999\"}", 400, "upstream")]
    [InlineData("POST", "/proxies", "{\"name\":\"a/b\",\"upstream\":\"127.0.0.1:1\"}", 400, "name")]
    [InlineData("POST", "/proxies", "{\"name\":\"..\",\"upstream\":\"127.0.0.1:1\"}", 400, "name")]
    [InlineData("POST", "/proxies", "{\"name\":\"a\\u0000b\",\"upstream\":\"127.0.0.1:1\"}", 400, "name")]
    [InlineData("POST", "/proxies", "{\"name\":\"\\ud800\",\"upstream\":\"127.0.0.1:1\"}", 400, "name")]
    [InlineData("POST", "/proxies", "{\"name\":7,\"upstream\":\"127.0.0.1:1\"}", 400, "name")]
    [InlineData("POST", "/proxies", "{\"name\":\"p\",\"upstream\":\"127.0.0.1:1\"}", 409, "name")]
    [InlineData("POST", "/proxies/p", "{\"listen\":5}", 400, "listen")]
    [InlineData("POST", "/proxies/p", "{\"enabled\":\"yes\"}", 400, "enabled")]
    [InlineData("POST", "/proxies/p", "{\"listen\":\"10.0.0.1:0\"}", 400, "listen")]
    [InlineData("POST", "/proxies/nope", "{}", 404, "proxy")]
    [InlineData(
        "POST",
        "/proxies/p/toxics",
        "{\"type\":\"limit_data\",\"attributes\":{\"bytes\":-5}}",
        400,
        "attributes.bytes"
    )]
    [InlineData(
        "POST",
        "/proxies/p/toxics",
        "{\"type\":\"latency\",\"attributes\":{\"latency\":3000000000}}",
        400,
        "attributes.latency"
    )]
    [InlineData(
        "POST",
        "/proxies/p/toxics",
        "{\"type\":\"latency\",\"attributes\":{\"latency\":1.5}}",
        400,
        "attributes.latency"
    )]
    [InlineData("POST", "/proxies/p/toxics", "{\"type\":\"latency\",\"attributes\":null}", 400, "attributes")]
    [InlineData(
        "POST",
        "/proxies/p/toxics",
        "{\"type\":\"slicer\",\"attributes\":{\"average_size\":4,\"size_variation\":4}}",
        400,
        "attributes.size_variation"
    )]
    [InlineData("POST", "/proxies/p/toxics", "{\"type\":\"latency\",\"stream\":null}", 400, "stream")]
    [InlineData("POST", "/proxies/p/toxics", "{\"type\":\"gremlins\"}", 400, "type")]
    [InlineData("POST", "/proxies/p/toxics", "{\"type\":\"latency\",\"toxicity\":1e400}", 400, "toxicity")]
    [InlineData("POST", "/proxies/p/toxics", "{\"type\":\"latency\",\"toxicity\":-0.5}", 400, "toxicity")]
    [InlineData("POST", "/proxies/p/toxics", "{\"name\":\"t\",\"type\":\"latency\"}", 409, "name")]
    [InlineData("POST", "/proxies/p/toxics/t", "{\"toxicity\":1e400}", 400, "toxicity")]
    [InlineData("POST", "/proxies/p/toxics/t", "{\"toxicity\":\"high\"}", 400, "toxicity")]
    [InlineData("POST", "/proxies/p/toxics/t", "{\"attributes\":[1]}", 400, "attributes")]
    [InlineData("POST", "/proxies/p/toxics/t", "{\"attributes\":{\"latency\":-1}}", 400, "attributes.latency")]
    [InlineData("POST", "/proxies/p/toxics/nope", "{}", 404, "toxic")]
    [InlineData("GET", "/nowhere", null, 404, "path")]
    [InlineData("PUT", "/proxies", "{}", 405, "path")]
    public async Task A_client_error_is_a_4xx_with_a_json_body_naming_the_field(
        string method,
        string path,
        string? body,
        int status,
        string field
    )
    {
        (int got, JsonElement answer) = await SendAsync(method, path, body);
        Assert.True(got == status, $"{method} {path} {body}: {got} {answer}");
        Assert.Equal(JsonValueKind.Object, answer.ValueKind);
        Assert.Equal(status, answer.GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrEmpty(answer.GetProperty("error").GetString()));
        Assert.Equal(field, answer.GetProperty("field").GetString());
        // Nothing half-done: the proxy and its toxic are as they were.
        Assert.Equal(["t"], _server.Registry.GetProxy("p").Toxics().Select(t => t.Name));
        Assert.Equal(1, _server.Registry.GetProxy("p").FindToxic("t")!.Attribute("latency"));
    }

    [Fact]
    public async Task Names_are_limited_to_255_characters_and_every_accepted_name_can_be_read_and_deleted()
    {
        using var client = new ToxiproxyClient(_server.ApiUrl);
        var tooLong = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            client.CreateProxyAsync(new string('x', 10_000), "127.0.0.1:0", "127.0.0.1:1")
        );
        Assert.Equal((400, "name"), (tooLong.Status, tooLong.Field));

        // The longest name, of characters that take the most room percent-encoded, plus URL-special ones.
        string name = string.Concat(Enumerable.Repeat("€", ToxiproxyValidation.MaxNameLength - 6)) + "?#% +.";
        string toxic = new('€', ToxiproxyValidation.MaxNameLength);
        Assert.Equal(name, (await client.CreateProxyAsync(name, "127.0.0.1:0", "127.0.0.1:1")).Name);
        await client.AddToxicAsync(
            name,
            "latency",
            "upstream",
            new Dictionary<string, long> { ["latency"] = 5 },
            name: toxic
        );
        Assert.Equal(5, (await client.GetToxicAsync(name, toxic)).Attribute("latency"));
        await client.RemoveToxicAsync(name, toxic);
        await client.DeleteProxyAsync(name);
        Assert.Equal(404, (await Assert.ThrowsAsync<ToxiproxyApiException>(() => client.GetProxyAsync(name))).Status);
    }

    [Fact]
    public async Task A_listen_address_in_use_is_409_and_an_update_to_one_keeps_the_old_address()
    {
        using var taken = new TcpListener(IPAddress.Loopback, 0);
        taken.Start();
        int port = ((IPEndPoint)taken.LocalEndpoint).Port;
        using var client = new ToxiproxyClient(_server.ApiUrl);

        var create = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            client.CreateProxyAsync("q", $"127.0.0.1:{port}", "127.0.0.1:1")
        );
        Assert.Equal((409, "listen"), (create.Status, create.Field));
        Assert.False(_server.Registry.Proxies.ContainsKey("q"));

        var update = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            client.UpdateProxyAsync("p", listen: $"127.0.0.1:{port}")
        );
        Assert.Equal((409, "listen"), (update.Status, update.Field));
        ProxyConfig after = await client.GetProxyAsync("p");
        Assert.True(after.Enabled);
        Assert.Equal(_proxy.Listen, after.Listen);
        using var probe = new TcpClient();
        await probe.ConnectAsync(IPAddress.Loopback, after.ListenPort); // still listening where it was
    }

    [Theory]
    [InlineData("[::ffff:127.0.0.1]:0", "127.0.0.1")]
    [InlineData("localhost:0", "127.0.0.1")]
    [InlineData("127.0.0.1:0", "127.0.0.1")]
    public async Task The_api_binds_any_form_of_a_loopback_address(string address, string boundHost)
    {
        await using EmbeddedToxiproxy server = await EmbeddedToxiproxy.StartAsync(address);
        Assert.Equal(boundHost, server.ApiUrl.Host);
        using var client = new ToxiproxyClient(server.ApiUrl);
        Assert.False(string.IsNullOrEmpty(await client.GetVersionAsync()));
    }

    [Theory]
    [InlineData("0.0.0.0:0")]
    [InlineData("10.1.2.3:8474")]
    [InlineData("example.com:8474")]
    [InlineData("127.0.0.1")]
    [InlineData("127.0.0.1:70000")]
    [InlineData("")]
    public async Task The_api_refuses_other_addresses_with_an_exception_naming_them(string address)
    {
        var e = await Assert.ThrowsAsync<ToxiproxyBindException>(() => EmbeddedToxiproxy.StartAsync(address));
        Assert.Equal(address, e.Address);
        Assert.Contains(address, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_api_on_a_taken_port_is_a_bind_exception_naming_the_address()
    {
        string address = $"127.0.0.1:{_server.ApiUrl.Port}";
        var e = await Assert.ThrowsAsync<ToxiproxyBindException>(() => EmbeddedToxiproxy.StartAsync(address));
        Assert.Equal(address, e.Address);
        var mapped = await Assert.ThrowsAsync<ToxiproxyBindException>(() =>
            EmbeddedToxiproxy.StartAsync(new IPEndPoint(IPAddress.Parse("0.0.0.0"), 0))
        );
        Assert.Equal("0.0.0.0:0", mapped.Address);
    }
}
