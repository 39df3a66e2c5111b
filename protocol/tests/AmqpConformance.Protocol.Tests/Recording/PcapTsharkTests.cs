using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>Wireshark's AMQP dissector reads the exported captures: same frames (type, channel, size, method) as the
/// log.</summary>
public sealed class PcapTsharkTests
{
    [RequiresTsharkFact]
    public async Task Tshark_dissects_the_same_frames_as_the_log_with_truncated_and_zero_filled_bodies()
    {
        var sample = new SampleLogs(connectionId: 1);
        sample.Method(FrameDirection.Sent, 0, new ConnectionStart());
        sample.Method(FrameDirection.Received, 0, new ConnectionStartOk { Response = "\0guest\0guest"u8.ToArray() });
        sample.Method(FrameDirection.Sent, 0, new ConnectionTune { FrameMax = 131072 });
        sample.Method(FrameDirection.Received, 0, new ConnectionTuneOk { FrameMax = 131072 });
        sample.Method(FrameDirection.Received, 0, new ConnectionOpen());
        sample.Method(FrameDirection.Sent, 0, new ConnectionOpenOk());
        foreach (ushort channel in (ushort[])[1, 2])
        {
            sample.Method(FrameDirection.Received, channel, new ChannelOpen());
            sample.Method(FrameDirection.Sent, channel, new ChannelOpenOk());
        }
        sample.Publish(1, SampleLogs.Pattern(300_000, 1), 131072); // frames larger than one IPv4 packet
        sample.Publish(2, [], 131072);
        sample.Publish(2, SampleLogs.Pattern(5, 2), 131072);
        sample.Heartbeat(FrameDirection.Received);
        sample.Heartbeat(FrameDirection.Sent);
        List<Tshark.DissectedFrame> expected = [.. sample.Log.Snapshot().Select(Tshark.Expected)];

        foreach (PcapUncapturedBodies mode in Enum.GetValues<PcapUncapturedBodies>())
        {
            string path = Path.Combine(Path.GetTempPath(), $"export-{mode}-{Guid.NewGuid():N}.pcap");
            try
            {
                using (var file = File.Create(path))
                    PcapExporter.Write(file, sample.Log, new PcapExportOptions { UncapturedBodies = mode });
                List<Tshark.DissectedFrame> dissected = await Tshark.DissectAsync(path);
                Assert.Equal(expected, dissected);
            }
            finally
            {
                File.Delete(path);
            }
        }
    }
}
