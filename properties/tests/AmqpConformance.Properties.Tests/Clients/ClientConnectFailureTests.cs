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
}
