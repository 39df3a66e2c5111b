using System.Buffers;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using AmqpConformance.Protocol;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>With the output stalled through disposal, the harness moves the case's clock to the writer's next timer
/// (its drain timeout) only once the writer is waiting for something: not while it has stopped in the middle of a
/// command with no flush pending, which is what a thread kept off the CPU by an oversubscribed machine looks like.
/// Moved then, the writer gave up with half a command written and wrote the rest after its disposal returned.</summary>
public sealed class DisposalMidCommandTests
{
    /// <summary>How long the writer's thread is "kept off the CPU" between the header and the body: far longer than a
    /// settle takes, far shorter than the disposal bound (3 s of margin).</summary>
    private static readonly TimeSpan Descheduled = TimeSpan.FromMilliseconds(300);

    /// <summary>One call with a body, its output held from the start and through disposal.</summary>
    private static Scenario PausedMidCommandThroughDispose() =>
        new(
            4096,
            ChannelLayout.OwnChannel,
            [
                [new CallStep(100)],
            ],
            FaultPlan.Empty,
            Seed: 11
        )
        {
            Script = [ScriptAction.Hold, ScriptAction.Call(0), ScriptAction.Dispose],
            StallThroughDispose = true,
        };

    [Fact]
    public async Task The_clock_does_not_move_to_the_drain_timeout_while_the_writer_is_in_the_middle_of_a_command()
    {
        // A drain timeout of ten minutes: it can only expire by the harness moving the clock, never by real time during
        // the pause.
        var options = WriterRunOptions.Default with { StalledDrainTimeout = TimeSpan.FromMinutes(10) };
        var factory = FrameWriterFactory.Create("PausesMidCommand", c => new PausesMidCommandWriter(c));
        var result = await WriterLevelRunner
            .RunAsync(factory, PausedMidCommandThroughDispose(), options)
            .WaitAsync(TimeSpan.FromMinutes(2));
        var lifecycle = result.Evidence.Lifecycle!;
        Assert.NotNull(lifecycle.DisposeReturnedAt);
        Assert.Equal(0, lifecycle.BytesWrittenAfterDispose);
        Assert.True(result.Check(InvariantNames.Lifecycle).Holds, result.Check(InvariantNames.Lifecycle).ToString());
        // The clock did move to the drain timeout in the end (once the flush was held): the case cost no drain time.
        Assert.True(
            result.Phases!.Skipped >= TimeSpan.FromMinutes(9),
            $"skipped only {result.Phases.Skipped}: the drain timeout was not moved past"
        );
    }

    /// <summary>Correct for a machine that runs it: it writes the method and header, is kept off the CPU for a moment,
    /// writes the body and flushes. Its disposal waits for the call up to the drain timeout on the case's clock, then
    /// cancels the pending flush and returns at once (no real-time wait for the call, so a clock moved too early shows
    /// as bytes after disposal).</summary>
    private sealed class PausesMidCommandWriter(WriterContext context) : IFrameWriter
    {
        private Task _call = Task.CompletedTask;

        public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
        {
            _call = WriteCoreAsync(command);
            return new ValueTask(_call);
        }

        private async Task WriteCoreAsync(OutgoingCommand command)
        {
            try
            {
                var output = context.Output;
                output.Write(command.Frames.Span);
                await Task.Delay(Descheduled).ConfigureAwait(false);
                int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
                for (var body = command.Body; !body.IsEmpty; )
                {
                    var chunk = body[..Math.Min(max, body.Length)];
                    FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, chunk.Span);
                    body = body[chunk.Length..];
                }
                CommandFraming.ThrowIfNotDelivered(await output.FlushAsync().ConfigureAwait(false));
            }
            finally
            {
                command.Release(context.Pool);
            }
        }

        public async ValueTask DisposeAsync()
        {
            var call = _call;
            var first = await Task.WhenAny(call, Task.Delay(context.DrainTimeout, context.TimeProvider))
                .ConfigureAwait(false);
            if (first != call)
                context.Output.CancelPendingFlush();
        }
    }
}
