using System.Buffers;
using AmqpConformance.Harness.Writers;
using Microsoft.Coyote.Specifications;

namespace AmqpConformance.Harness.Interleavings.Tests.Support;

/// <summary>
/// One run of the fault race: the first call's flush stalls, two more calls arrive behind it, the output is resumed and
/// the flush that carries the two fails; a fourth call, on its own task, starts the moment that flush fails, so it
/// meets the writer while the writer is still handling the failure. The writer must not use its output after the
/// failure, whichever task wins, every call must end, and disposal must return.
/// </summary>
public static class FaultRace
{
    /// <summary>Runs the race against a writer from <paramref name="create"/>; asserts through Coyote's
    /// <see cref="Specification"/>, so a violation is a bug report of the exploration.</summary>
    public static async Task RunAsync(Func<WriterContext, IFrameWriter> create, bool failLater = false)
    {
        var output = new StallThenFailOutput { FailsLater = failLater };
        var pool = ArrayPool<byte>.Shared;
        var writer = create(new WriterContext(output, pool, 4096));
        var first = RaceCall.MakeAsync(writer, pool, 1);
        await output.FirstFlushStarted.ConfigureAwait(false);
        var queued = new[] { RaceCall.MakeAsync(writer, pool, 2), RaceCall.MakeAsync(writer, pool, 3) };
        var racer = Task.Run(async () =>
        {
            await output.Failed.ConfigureAwait(false);
            return await RaceCall.MakeAsync(writer, pool, 4).ConfigureAwait(false);
        });
        output.Resume();
        await Task.WhenAll(queued.Append(first).Append(racer)).ConfigureAwait(false);
        Specification.Assert(output.HasFailed, "the injected flush failure never happened");
        Specification.Assert(
            output.UsesAfterFailure == 0,
            "the writer used its output {0} time(s) after the output failed; the racing call ended with {1}",
            output.UsesAfterFailure,
            (await racer.ConfigureAwait(false))?.GetType().Name ?? "success"
        );
        await writer.DisposeAsync().ConfigureAwait(false);
    }
}
