using AmqpConformance.FakeBroker;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;
using AmqpConformance.TestSupport.Peers;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>A real session with the fake broker, exported: the JSON Lines file reads back to the broker's log, and
/// tshark finds the same frames in the pcap as the JSON Lines file holds.</summary>
public sealed class BrokerSessionExportTests
{
    private static async Task<FrameLog> RecordSessionAsync(bool captureBodies)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        CancellationToken ct = timeout.Token;
        await using FakeAmqpBroker broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions
            {
                FrameMax = 131072,
                HeartbeatSeconds = 0,
                FrameLog = new FrameLogOptions { CaptureBodies = captureBodies },
            },
            ct
        );
        await using (AmqpTestClient client = await AmqpTestClient.ConnectAsync(broker.Endpoint, ct))
        {
            await client.HandshakeAsync(cancellationToken: ct);
            int frameMax = (int)client.TuneOk!.FrameMax;
            foreach (ushort channel in (ushort[])[1, 2])
            {
                await client.OpenChannelAsync(channel, ct);
                await client.SendMethodAsync(channel, new ConfirmSelect(), ct);
                await client.ExpectAsync<ConfirmSelectOk>(ct);
            }
            await client.SendMethodAsync(1, new QueueDeclare { Queue = "export" }, ct);
            await client.ExpectAsync<QueueDeclareOk>(ct);
            int k = 0;
            foreach (int size in (int[])[0, 10, 5000, 131064, 300_000])
            {
                await client.PublishAsync(
                    (ushort)(1 + k % 2),
                    "",
                    "export",
                    SampleLogs.Pattern(size, k++),
                    frameMax,
                    cancellationToken: ct
                );
                await client.ExpectAsync<BasicAck>(ct);
            }
            await client.SendHeartbeatAsync(ct);
            await client.CloseAsync(ct);
        }
        BrokerConnection connection = Assert.Single(broker.Connections);
        await connection.Completion.WaitAsync(ct);
        return connection.Log;
    }

    [Fact]
    public async Task The_broker_log_round_trips_through_JSON_Lines()
    {
        FrameLog log = await RecordSessionAsync(captureBodies: true);
        using var stream = new MemoryStream();
        JsonLinesExporter.Write(stream, log);
        stream.Position = 0;

        FrameLogSnapshot back = Assert.Single(JsonLinesReader.Read(stream));

        FrameRecordAssert.Equal(log.Snapshot(), back.Frames);
        Assert.Equal(log.Findings(), back.Findings);
        Assert.Contains(back.Frames, f => f.Direction == FrameDirection.Sent);
        Assert.Equal(8, back.Frames.First(f => f.Direction == FrameDirection.Received).WireOffset);
    }

    [RequiresTsharkFact]
    public async Task Tshark_finds_the_frames_of_the_JSON_Lines_log_in_the_pcap()
    {
        FrameLog log = await RecordSessionAsync(captureBodies: false);
        string dir = Directory.CreateTempSubdirectory("amqpc-export-").FullName;
        try
        {
            string jsonl = Path.Combine(dir, "session.jsonl");
            using (var file = File.Create(jsonl))
                JsonLinesExporter.Write(file, log);
            FrameLogSnapshot fromJson = Assert.Single(JsonLinesReader.ReadFile(jsonl));
            List<Tshark.DissectedFrame> expected = [.. fromJson.Frames.Select(Tshark.Expected)];
            Assert.Contains(expected, f => f.Type == 3 && f.Length == 131064); // body frames of frame_max - 8 ...
            Assert.Contains(expected, f => f.Class == 60 && f.Method == 80); // ... and the broker's confirms

            foreach (PcapUncapturedBodies mode in Enum.GetValues<PcapUncapturedBodies>())
            {
                string pcap = Path.Combine(dir, $"session-{mode}.pcap");
                using (var file = File.Create(pcap))
                    PcapExporter.Write(file, [fromJson], new PcapExportOptions { UncapturedBodies = mode });
                Assert.Equal(expected, await Tshark.DissectAsync(pcap));
            }
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
