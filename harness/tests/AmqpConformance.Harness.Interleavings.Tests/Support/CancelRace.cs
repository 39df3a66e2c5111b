using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;
using Microsoft.Coyote.Specifications;

namespace AmqpConformance.Harness.Interleavings.Tests.Support;

/// <summary>
/// One run of the cancellation race: the first call's flush stalls, a second call with a cancellation token and a third
/// without arrive behind it, then the token is cancelled on one task while the output is resumed on another, so the
/// cancellation meets the second call wherever the writer has got to with it. Whichever wins, the call's outcome and
/// the output must agree (a cancelled call wrote nothing, a successful one wrote its command once), the other calls
/// succeed with their command written once, and every command's frames go back to the pool exactly once (a
/// <see cref="TrackingArrayPool"/> checks).
/// </summary>
public static class CancelRace
{
    /// <summary>Runs the race against a writer from <paramref name="create"/>; asserts through Coyote's
    /// <see cref="Specification"/>.</summary>
    public static async Task RunAsync(Func<WriterContext, IFrameWriter> create)
    {
        var output = new StallThenFailOutput { FailOnFlush = int.MaxValue };
        var pool = new TrackingArrayPool();
        var writer = create(new WriterContext(output, pool, 4096));
        using var cancellation = new CancellationTokenSource();
        var first = RaceCall.MakeAsync(writer, pool, 1, CancellationToken.None);
        await output.FirstFlushStarted.ConfigureAwait(false);
        var second = RaceCall.MakeAsync(writer, pool, 2, cancellation.Token);
        var third = RaceCall.MakeAsync(writer, pool, 3, CancellationToken.None);
        var canceller = Task.Run(cancellation.Cancel);
        output.Resume();
        await Task.WhenAll(first, second, third, canceller).ConfigureAwait(false);
        await writer.DisposeAsync().ConfigureAwait(false);

        byte[] written = output.Written();
        Specification.Assert(
            await first.ConfigureAwait(false) is null && Count(written, 1) == 1,
            "call 1 did not succeed with its command written once"
        );
        Specification.Assert(
            await third.ConfigureAwait(false) is null && Count(written, 3) == 1,
            "call 3 did not succeed with its command written once"
        );
        var outcome = await second.ConfigureAwait(false);
        int copies = Count(written, 2);
        Specification.Assert(
            outcome is null ? copies == 1 : outcome is OperationCanceledException && copies == 0,
            "the cancelled call ended with {0} but its command is in the output {1} time(s)",
            outcome?.GetType().Name ?? "success",
            copies
        );
        var ledger = pool.Verify();
        Specification.Assert(ledger.IsClean, "the pool's ledger is not clean: {0}", ledger);
    }

    /// <summary>How many commands of <paramref name="channel"/> (<see cref="RaceCall"/>) are in
    /// <paramref name="written"/>.</summary>
    private static int Count(byte[] written, byte channel)
    {
        int count = 0;
        for (int at = 0; at + RaceCall.Length <= written.Length; at += RaceCall.Length)
            if (written.AsSpan(at, RaceCall.Length).IndexOfAnyExcept(channel) < 0)
                count++;
        return count;
    }
}
