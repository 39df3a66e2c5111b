using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Properties.Clients;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Tests.Clients;

/// <summary>A client that cannot connect fails its case: the first call carries the connect error, and with no fault
/// in the scenario nothing explains it.</summary>
public sealed class ClientConnectFailureTests
{
    private sealed class RefusingClient : ClientAdapter
    {
        public override string Name => "refusing";

        public override Task<IClientSession> ConnectAsync(
            ClientConnectOptions options,
            CancellationToken cancellationToken
        ) => throw new InvalidOperationException($"refused to connect to {options.Endpoint}");
    }

    [Fact]
    public async Task A_client_that_cannot_connect_fails_its_first_call()
    {
        await using var runner = await ClientLevelRunner.StartAsync();
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(16), new CallStep(16)],
            ],
            FaultPlan.Empty
        );

        var result = await runner.RunAsync(new RefusingClient(), scenario);

        var call = Assert.Single(result.Evidence.Calls);
        Assert.Equal(CallOutcome.Failed, call.Outcome);
        Assert.Contains("could not connect: InvalidOperationException: refused to connect to 127.0.0.1:", call.Error);
        var violation = Assert.Single(result.Judgement.Violations);
        Assert.Equal("failed-without-cause", violation.Rule);
    }

    /// <summary>Connects, and opens its channels, only after <paramref name="delay"/>: as a client's first case does
    /// while the process compiles its code on a loaded machine.</summary>
    private sealed class SlowToConnectClient(TimeSpan delay) : ClientAdapter
    {
        private readonly HarnessClientAdapter _client = new();

        public override string Name => "slow to connect";

        public override async Task<IClientSession> ConnectAsync(
            ClientConnectOptions options,
            CancellationToken cancellationToken
        )
        {
            await Task.Delay(delay, cancellationToken);
            return await _client.ConnectAsync(options, cancellationToken);
        }
    }

    [Fact]
    public async Task A_client_slower_to_connect_than_a_call_may_take_is_not_failed_for_it()
    {
        await using var runner = await ClientLevelRunner.StartAsync();
        Assert.True(runner.OpenTimeout >= runner.CallTimeout + TimeSpan.FromSeconds(10));
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(16)],
            ],
            FaultPlan.Empty
        );

        // Connecting takes a second longer than a publish may: the publish is judged, the connect is not.
        var result = await runner.RunAsync(
            new SlowToConnectClient(runner.CallTimeout + TimeSpan.FromSeconds(1)),
            scenario
        );

        Assert.Equal(CallOutcome.Succeeded, Assert.Single(result.Evidence.Calls).Outcome);
        Assert.Empty(result.Judgement.Violations);
    }
}
