using System.Buffers;
using AmqpConformance.Harness.Writers;
using Microsoft.Coyote.Specifications;

namespace AmqpConformance.Harness.Interleavings.Tests.Support;

/// <summary>
/// One run of the fault race: the first call's flush stalls, two more calls arrive behind it, the output is resumed and the
/// flush that carries the two fails; a fourth call, on its own task, starts the moment that flush fails, so it meets the writer
/// while the writer is still handling the failure. The writer must not use its output after the failure, whichever task wins,
/// every call must end, and disposal must return.
/// </summary>
public static class FaultRace
{
    /// <summary>Runs the race against a writer from <paramref name="create"/>; asserts through Coyote's
    /// <see cref="Specification"/>, so a violation is a bug report of the exploration.</summary>
    public static async Task RunAsync(Func<WriterContext, IFrameWriter> create, bool failLater = false)
    {
        var output = new StallThenFailOutput { FailsLater = failLater };
        var writer = create(new WriterContext(output, ArrayPool<byte>.Shared, 4096));
        var first = CallAsync(writer, 1);
        await output.FirstFlushStarted.ConfigureAwait(false);
        var queued = new[] { CallAsync(writer, 2), CallAsync(writer, 3) };
        var racer = Task.Run(async () =>
        {
            await output.Failed.ConfigureAwait(false);
            return await CallAsync(writer, 4).ConfigureAwait(false);
        });
        output.Resume();
        await Task.WhenAll(queued.Append(first).Append(racer)).ConfigureAwait(false);
        Specification.Assert(output.HasFailed, "the injected flush failure never happened");
        Specification.Assert(output.UsesAfterFailure == 0,
            "the writer used its output {0} time(s) after the output failed; the racing call ended with {1}",
            output.UsesAfterFailure, (await racer.ConfigureAwait(false))?.GetType().Name ?? "success");
        await writer.DisposeAsync().ConfigureAwait(false);
    }

    /// <summary>A command without content on <paramref name="channel"/>: 8 bytes of frames rented from the shared pool (the
    /// output does not parse them).</summary>
    private static OutgoingCommand Command(ushort channel)
    {
        byte[] frames = ArrayPool<byte>.Shared.Rent(16);
        frames.AsSpan(0, 8).Fill((byte)channel);
        return new OutgoingCommand(channel, frames, 8, hasContent: false);
    }

    /// <summary>Calls the writer with a command on <paramref name="channel"/> and reports how the call ended: null on success,
    /// else the exception.</summary>
    /// <remarks>The call's ValueTask is awaited where it is made: the Coyote 1.7.11 rewriter emits invalid code for a ValueTask
    /// passed straight from one call into another (InvalidProgramException at run time).</remarks>
    private static async Task<Exception?> CallAsync(IFrameWriter writer, ushort channel)
    {
        try
        {
            await writer.WriteAsync(Command(channel)).ConfigureAwait(false);
            return null;
        }
        catch (Exception ex)
        {
            return ex;
        }
    }
}
