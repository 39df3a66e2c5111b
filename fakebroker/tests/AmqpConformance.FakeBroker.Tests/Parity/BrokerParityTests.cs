using Xunit.Abstractions;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>
/// The same raw byte sequences go to a real RabbitMQ and to the fake broker in its RabbitMQ profile; both must
/// answer the same way: the same close (connection or channel, reply code, failing class/method ids), or the same
/// protocol-header refusal, or the same silent disconnect. Reply texts are shown, not compared.
/// </summary>
[Trait("Category", "Parity")]
public sealed class BrokerParityTests(ITestOutputHelper output)
{
    public static TheoryData<string> Cases => ParityCase.Names();

    [RequiresRabbitMqTheory]
    [MemberData(nameof(Cases))]
    public async Task Fake_broker_answers_like_RabbitMQ(string caseName)
    {
        ParityCase parityCase = ParityCase.All[caseName];

        (string host, int port) = await RealRabbitMq.EndpointAsync();
        ParityAnswer rabbit = await ParityProbe.RunAsync(parityCase, host, port);
        ParityAnswer fake;
        await using (
            FakeAmqpBroker broker = await FakeAmqpBroker.StartAsync(
                new FakeAmqpBrokerOptions { Strictness = Strictness.RabbitMq }
            )
        )
            fake = await ParityProbe.RunAsync(parityCase, "127.0.0.1", broker.Port);

        output.WriteLine($"RabbitMQ:    {rabbit}");
        output.WriteLine($"fake broker: {fake}");
        // Guards the probe: a case RabbitMQ lets through would compare nothing.
        Assert.NotEqual(ParityAnswerKind.NoAnswer, rabbit.Kind);
        Assert.True(rabbit.SameAs(fake), $"{caseName}: RabbitMQ answered {rabbit}; the fake broker answered {fake}");
    }
}
