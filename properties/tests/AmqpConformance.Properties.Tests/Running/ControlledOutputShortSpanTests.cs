using System.IO.Pipelines;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>With noise on, the output sometimes hands out no more memory than a <see cref="PipeWriter"/> promises (the
/// size hint, or a few bytes without one), as a pipe does near a segment's end, and refuses to advance past it; without
/// noise it hands out what the pipe gives.</summary>
public sealed class ControlledOutputShortSpanTests
{
    [Fact]
    public void With_noise_some_spans_are_as_short_as_the_contract_allows_and_never_shorter()
    {
        var pipe = new Pipe();
        var output = new ControlledOutput(pipe.Writer, () => TimeSpan.Zero, 4096, noiseSeed: 5);
        var unhinted = new List<int>();
        for (int i = 0; i < 400; i++)
        {
            int hint = i % 2 == 0 ? 0 : 1 + i % 50;
            var memory = output.GetMemory(hint);
            Assert.True(memory.Length >= Math.Max(1, hint), $"request {i}: {memory.Length} bytes for a hint of {hint}");
            if (hint == 0)
                unhinted.Add(memory.Length);
            output.Advance(Math.Max(1, hint));
        }
        Assert.Contains(unhinted, n => n < 7); // too short for a frame header
        Assert.Contains(unhinted, n => n >= 4096 - 1000); // and mostly the pipe's own
    }

    [Fact]
    public void Advancing_past_a_short_span_is_refused_as_a_pipe_refuses_it()
    {
        var output = new ControlledOutput(new Pipe().Writer, () => TimeSpan.Zero, 4096, noiseSeed: 5);
        for (int i = 0; i < 400; i++)
        {
            var memory = output.GetMemory();
            if (memory.Length >= 7)
            {
                output.Advance(1);
                continue;
            }
            Assert.Throws<ArgumentOutOfRangeException>(() => output.Advance(memory.Length + 1));
            return;
        }
        Assert.Fail("no short span in 400 requests");
    }

    [Fact]
    public void Without_noise_every_span_is_the_pipes_own()
    {
        var output = new ControlledOutput(new Pipe().Writer, () => TimeSpan.Zero, 4096, noiseSeed: null);
        for (int i = 0; i < 200; i++)
        {
            Assert.True(output.GetMemory().Length >= 7);
            output.Advance(1);
        }
    }

    [Fact]
    public async Task A_writer_that_trusts_an_unhinted_span_is_caught_in_a_noisy_case_and_a_reference_writer_holds()
    {
        // Bodies of several frames each: every frame header is a chance to meet a short span.
        var scenario = new Scenario(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(20_000), new CallStep(9_000), new CallStep(30_000)],
            ],
            FaultPlan.Empty,
            Seed: 3
        )
        {
            Noise = true,
        };
        var broken = await WriterLevelRunner.RunAsync(ZooWriters.FromName("Zoo:UnhintedSpan")!.Factory, scenario);
        Assert.False(
            broken.Check(Harness.Verdicts.InvariantNames.CommandShape).Holds
                && broken.Check(Harness.Verdicts.InvariantNames.Faults).Holds,
            "the unhinted span went unnoticed"
        );
        foreach (var mode in WriterModes.All)
        {
            var result = await WriterLevelRunner.RunAsync(mode, scenario);
            foreach (string invariant in Harness.Verdicts.InvariantNames.All)
                Assert.True(result.Check(invariant).Holds, $"{mode.Name}: {result.Check(invariant)}");
        }
    }
}
