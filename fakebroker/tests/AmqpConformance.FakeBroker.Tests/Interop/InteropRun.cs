using System.Text.Json;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using Xunit.Abstractions;

namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>
/// One interop run: a fake broker at the given frame_max, a client script that publishes with confirms and consumes
/// back, then checks on both sides — the script's byte-exact verdict and the broker's frame log (every body frame
/// frame_max - 8 except the last, digests equal to the published bytes, nothing over frame_max, no finding that
/// closed anything). Strict-only findings are printed and must be among the rules the caller names: they are real
/// results about the client (documented in the README), and anything new fails the test.
/// </summary>
internal static class InteropRun
{
    private static readonly TimeSpan ScriptTimeout = TimeSpan.FromSeconds(90);

    public static async Task<IReadOnlyList<ProtocolFinding>> RunAsync(
        string client,
        string program,
        IReadOnlyList<string> scriptArguments,
        int frameMax,
        IReadOnlySet<string> knownStrictRules,
        ITestOutputHelper output
    )
    {
        await using FakeAmqpBroker broker = await FakeAmqpBroker.StartAsync(
            new FakeAmqpBrokerOptions
            {
                FrameMax = frameMax,
                HeartbeatSeconds = 0,
                Strictness = Strictness.Strict,
            }
        );

        ScriptResult run = await ScriptRunner.RunAsync(
            program,
            [.. scriptArguments, broker.Port.ToString(), frameMax.ToString()],
            ScriptTimeout,
            InteropScripts.Root
        );
        output.WriteLine($"{client} at frame_max {frameMax}: {run}");

        // The client's verdict: exit 0 and a RESULT line saying every message came back byte-exact.
        Assert.False(run.TimedOut, $"{client} did not finish within {ScriptTimeout.TotalSeconds} s\n{run}");
        string resultLine = run.StandardOutput.Split('\n')
            .Select(l => l.Trim())
            .LastOrDefault(l => l.StartsWith("RESULT ", StringComparison.Ordinal))
            ?? throw new Xunit.Sdk.XunitException($"{client} printed no RESULT line\n{run}");
        using JsonDocument result = JsonDocument.Parse(resultLine["RESULT ".Length..]);
        JsonElement root = result.RootElement;
        Assert.True(root.GetProperty("ok").GetBoolean(), $"{client} failed: {resultLine}\n{run}");
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(frameMax, root.GetProperty("frameMax").GetInt32());
        int[] sizes = [.. root.GetProperty("sizes").EnumerateArray().Select(e => e.GetInt32())];
        string[] sha256 = [.. root.GetProperty("sha256").EnumerateArray().Select(e => e.GetString()!)];
        Assert.Equal(sizes.Length, root.GetProperty("messages").GetInt32());
        Assert.Contains(0, sizes);
        Assert.Contains(1024 * 1024, sizes);
        // The script's bodies are the pattern this test knows (so the broker-side digests below mean something).
        for (int k = 0; k < sizes.Length; k++)
            Assert.Equal(InteropPattern.Sha256Hex(InteropPattern.Body(k, sizes[k])), sha256[k]);

        // The broker's side: wait for the connections to end (the script closed them), then read their logs.
        List<BrokerConnection> connections = [.. broker.Connections];
        Assert.NotEmpty(connections);
        using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(15)))
            await Task.WhenAll(connections.Select(c => c.Completion)).WaitAsync(timeout.Token);

        List<FrameRecord> frames = [.. connections.SelectMany(c => c.Log.Snapshot())];
        int maxPayload = AmqpConstants.MaxBodyFramePayload(frameMax);
        Assert.All(frames, f =>
            Assert.True(
                f.WireLength <= frameMax,
                $"frame {f.Sequence} ({f.Direction} {f.Type}) is {f.WireLength} bytes > frame_max {frameMax}"
            )
        );

        List<ContentCommand> publishes = ContentCommand.From(frames, FrameDirection.Received, "basic.publish");
        Assert.Equal(sizes.Length, publishes.Count);
        Assert.True(
            publishes.Select(p => p.Method.Channel).Distinct().Count() > 1,
            $"{client} published on one channel only"
        );
        foreach (ContentCommand publish in publishes)
        {
            Assert.NotNull(publish.Header);
            int k = Array.IndexOf(sizes, (int)publish.DeclaredBodySize);
            Assert.True(k >= 0, $"a publish declared {publish.DeclaredBodySize} bytes, which the script never sent");
            AssertBodyFrames(
                publish,
                InteropPattern.Body(k, sizes[k]),
                maxPayload,
                $"{client} publish of {sizes[k]} B"
            );
        }

        // The broker's own deliveries back to the client are split the same way.
        List<ContentCommand> deliveries = ContentCommand.From(frames, FrameDirection.Sent, "basic.deliver");
        Assert.Equal(sizes.Length, deliveries.Count);
        foreach (ContentCommand delivery in deliveries)
        {
            int k = Array.IndexOf(sizes, (int)delivery.DeclaredBodySize);
            AssertBodyFrames(
                delivery,
                InteropPattern.Body(k, sizes[k]),
                maxPayload,
                $"broker delivery of {sizes[k]} B"
            );
        }

        List<ProtocolFinding> findings = [.. connections.SelectMany(c => c.Log.Findings())];
        foreach (ProtocolFinding finding in findings)
            output.WriteLine($"finding ({client}, frame_max {frameMax}): {finding}");
        Assert.DoesNotContain(findings, f => f.ClosedConnection);
        Assert.All(findings, f =>
            Assert.True(knownStrictRules.Contains(f.Rule), $"{client} caused a new strict finding: {f}")
        );
        foreach (BrokerConnection connection in connections)
            output.WriteLine($"connection {connection.Id} closed: {connection.CloseInfo}");
        return findings;
    }

    private static void AssertBodyFrames(ContentCommand command, byte[] body, int maxPayload, string what)
    {
        Assert.Equal(body.Length, command.DeclaredBodySize);
        Assert.Equal(
            FrameFormat.BodyFrameCount(body.Length, maxPayload + AmqpConstants.FrameOverhead),
            command.Bodies.Count
        );
        int offset = 0;
        for (int i = 0; i < command.Bodies.Count; i++)
        {
            FrameRecord frame = command.Bodies[i];
            bool last = i == command.Bodies.Count - 1;
            if (!last)
                Assert.True(
                    frame.Size == maxPayload,
                    $"{what}: body frame {i} carries {frame.Size} bytes, not frame_max - 8 = {maxPayload}"
                );
            else
                Assert.True(
                    frame.Size is > 0 && frame.Size <= maxPayload,
                    $"{what}: last body frame carries {frame.Size} bytes"
                );
            Assert.True(
                frame.PayloadDigest == InteropPattern.FrameDigest(body.AsSpan(offset, frame.Size)),
                $"{what}: body frame {i} (bytes {offset}..{offset + frame.Size}) does not hold the published bytes"
            );
            offset += frame.Size;
        }
        Assert.Equal(body.Length, offset);
    }
}
