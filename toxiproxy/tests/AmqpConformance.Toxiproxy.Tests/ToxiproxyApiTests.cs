using System.Net.Sockets;

namespace AmqpConformance.Toxiproxy.Tests;

/// <summary>The HTTP API, as a Toxiproxy client uses it. Runs against the embedded server, or a real Toxiproxy
/// when TOXIPROXY_URL is set.</summary>
[Trait("Area", "Faults")]
public sealed class ToxiproxyApiTests
{
    private static CancellationTokenSource Timeout() => new(TimeSpan.FromSeconds(20));

    [Fact]
    public async Task Version_answers()
    {
        using var cts = Timeout();
        await using var target = await ToxiproxyTarget.StartAsync();
        Assert.False(string.IsNullOrWhiteSpace(await target.Client.GetVersionAsync(cts.Token)));
    }

    [Fact]
    public async Task Proxies_are_created_listed_updated_and_deleted()
    {
        using var cts = Timeout();
        await using var target = await ToxiproxyTarget.StartAsync();
        ProxyConfig created = await target.CreateProxyAsync(5672, cts.Token);
        Assert.True(created.Enabled);
        Assert.NotEqual(0, created.ListenPort);
        Assert.Empty(created.Toxics);
        Assert.Equal($"{ToxiproxyTarget.UpstreamHost}:5672", created.Upstream);

        using (var probe = new TcpClient())
            await probe.ConnectAsync(ToxiproxyTarget.ListenHost, created.ListenPort, cts.Token); // it really listens

        IReadOnlyDictionary<string, ProxyConfig> all = await target.Client.GetProxiesAsync(cts.Token);
        Assert.Equal(created.Listen, all[created.Name].Listen);

        var conflict = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.CreateProxyAsync(created.Name, "127.0.0.1:0", "127.0.0.1:1", cancellationToken: cts.Token)
        );
        Assert.Equal(409, conflict.Status);

        ProxyConfig disabled = await target.Client.UpdateProxyAsync(
            created.Name,
            enabled: false,
            cancellationToken: cts.Token
        );
        Assert.False(disabled.Enabled);
        Assert.False((await target.Client.GetProxyAsync(created.Name, cts.Token)).Enabled);
        ProxyConfig enabled = await target.Client.UpdateProxyAsync(
            created.Name,
            enabled: true,
            cancellationToken: cts.Token
        );
        Assert.True(enabled.Enabled);

        await target.Client.DeleteProxyAsync(created.Name, cts.Token);
        var missing = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.GetProxyAsync(created.Name, cts.Token)
        );
        Assert.Equal(404, missing.Status);
    }

    [Fact]
    public async Task Missing_fields_and_bad_toxics_are_refused_with_400()
    {
        using var cts = Timeout();
        await using var target = await ToxiproxyTarget.StartAsync();
        var noUpstream = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.CreateProxyAsync("amqpc_no_upstream", "127.0.0.1:0", "", cancellationToken: cts.Token)
        );
        Assert.Equal(400, noUpstream.Status);
        Assert.Contains("upstream", noUpstream.Message);

        ProxyConfig proxy = await target.CreateProxyAsync(5672, cts.Token);
        var badType = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.AddToxicAsync(
                proxy.Name,
                "gremlins",
                "upstream",
                new Dictionary<string, long>(),
                cancellationToken: cts.Token
            )
        );
        Assert.Equal(400, badType.Status);
        var badStream = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.AddToxicAsync(
                proxy.Name,
                "latency",
                "sideways",
                new Dictionary<string, long>(),
                cancellationToken: cts.Token
            )
        );
        Assert.Equal(400, badStream.Status);
        var noProxy = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.AddToxicAsync(
                "amqpc_nope",
                "latency",
                "upstream",
                new Dictionary<string, long>(),
                cancellationToken: cts.Token
            )
        );
        Assert.Equal(404, noProxy.Status);
    }

    [Fact]
    public async Task Toxics_get_toxiproxy_defaults_and_can_be_updated_and_removed()
    {
        using var cts = Timeout();
        await using var target = await ToxiproxyTarget.StartAsync();
        ProxyConfig proxy = await target.CreateProxyAsync(5672, cts.Token);

        // No name, no stream, no toxicity: Toxiproxy names it latency_downstream, downstream, toxicity 1, all
        // attributes present.
        ToxicConfig latency = await target.Client.AddToxicAsync(
            proxy.Name,
            new ToxicConfig
            {
                Type = "latency",
                Attributes = new Dictionary<string, long> { ["latency"] = 120 },
            },
            cts.Token
        );
        Assert.Equal("latency_downstream", latency.Name);
        Assert.Equal("downstream", latency.Stream);
        Assert.Equal(1f, latency.Toxicity);
        Assert.Equal(120, latency.Attribute("latency"));
        Assert.True(latency.Attributes.ContainsKey("jitter"));

        ToxicConfig slicer = await target.Client.AddToxicAsync(
            proxy.Name,
            "slicer",
            "upstream",
            new Dictionary<string, long>
            {
                ["average_size"] = 64,
                ["size_variation"] = 8,
                ["delay"] = 10,
            },
            name: "slices",
            cancellationToken: cts.Token
        );
        Assert.Equal("slices", slicer.Name);
        Assert.Equal(64, slicer.Attribute("average_size"));

        var duplicate = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.AddToxicAsync(
                proxy.Name,
                "slicer",
                "upstream",
                new Dictionary<string, long> { ["average_size"] = 5 },
                name: "slices",
                cancellationToken: cts.Token
            )
        );
        Assert.Equal(409, duplicate.Status);

        IReadOnlyList<ToxicConfig> toxics = await target.Client.GetToxicsAsync(proxy.Name, cts.Token);
        Assert.Equal(["slices", "latency_downstream"], toxics.Select(t => t.Name)); // upstream chain first
        Assert.Equal(2, (await target.Client.GetProxyAsync(proxy.Name, cts.Token)).Toxics.Count);

        ToxicConfig updated = await target.Client.UpdateToxicAsync(
            proxy.Name,
            "latency_downstream",
            new Dictionary<string, long> { ["jitter"] = 7 },
            toxicity: 0.5f,
            cancellationToken: cts.Token
        );
        Assert.Equal(120, updated.Attribute("latency"));
        Assert.Equal(7, updated.Attribute("jitter"));
        Assert.Equal(0.5f, updated.Toxicity);
        Assert.Equal(updated, await target.Client.GetToxicAsync(proxy.Name, "latency_downstream", cts.Token));

        await target.Client.RemoveToxicAsync(proxy.Name, "slices", cts.Token);
        Assert.Equal(
            ["latency_downstream"],
            (await target.Client.GetToxicsAsync(proxy.Name, cts.Token)).Select(t => t.Name)
        );
        var gone = await Assert.ThrowsAsync<ToxiproxyApiException>(() =>
            target.Client.GetToxicAsync(proxy.Name, "slices", cts.Token)
        );
        Assert.Equal(404, gone.Status);
    }

    [Fact]
    public async Task Reset_enables_proxies_and_removes_toxics()
    {
        using var cts = Timeout();
        await using var target = await ToxiproxyTarget.StartAsync();
        ProxyConfig proxy = await target.CreateProxyAsync(5672, cts.Token);
        await target.Client.AddToxicAsync(
            proxy.Name,
            "timeout",
            "upstream",
            new Dictionary<string, long> { ["timeout"] = 0 },
            cancellationToken: cts.Token
        );
        await target.Client.UpdateProxyAsync(proxy.Name, enabled: false, cancellationToken: cts.Token);

        await target.Client.ResetAsync(cts.Token);

        ProxyConfig after = await target.Client.GetProxyAsync(proxy.Name, cts.Token);
        Assert.True(after.Enabled);
        Assert.Empty(after.Toxics);
    }

    [Fact]
    public async Task Populate_creates_proxies_in_one_call()
    {
        using var cts = Timeout();
        await using var target = await ToxiproxyTarget.StartAsync();
        string a = "amqpc_pop_a_" + Guid.NewGuid().ToString("N")[..6],
            b = "amqpc_pop_b_" + Guid.NewGuid().ToString("N")[..6];
        try
        {
            IReadOnlyList<ProxyConfig> made = await target.Client.PopulateAsync(
                [
                    new ProxyConfig
                    {
                        Name = a,
                        Listen = $"{ToxiproxyTarget.ListenHost}:0",
                        Upstream = $"{ToxiproxyTarget.UpstreamHost}:5672",
                    },
                    new ProxyConfig
                    {
                        Name = b,
                        Listen = $"{ToxiproxyTarget.ListenHost}:0",
                        Upstream = $"{ToxiproxyTarget.UpstreamHost}:5673",
                        Enabled = false,
                    },
                ],
                cts.Token
            );
            Assert.Equal(2, made.Count);
            IReadOnlyDictionary<string, ProxyConfig> all = await target.Client.GetProxiesAsync(cts.Token);
            Assert.True(all[a].Enabled);
            Assert.False(all[b].Enabled);
        }
        finally
        {
            await target.Client.DeleteProxyAsync(a);
            await target.Client.DeleteProxyAsync(b);
        }
    }
}
