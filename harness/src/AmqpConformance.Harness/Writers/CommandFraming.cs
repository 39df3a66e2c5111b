using System.Buffers;
using System.IO.Pipelines;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Writers;

/// <summary>Shared steps of the reference writers: put one command's bytes into an output, and read a flush
/// result.</summary>
public static class CommandFraming
{
    /// <summary>Writes <paramref name="command"/>'s method (and header) frames, then <paramref name="body"/> as body
    /// frames of at most frame_max - 8 bytes, into <paramref name="output"/>. The body bytes are copied into the
    /// output's memory (no intermediate buffer), so the caller may reuse <paramref name="body"/> once this returns.
    /// Does not flush and does not release the command.</summary>
    /// <param name="output">Where the bytes go.</param>
    /// <param name="command">The command; its <see cref="OutgoingCommand.Body"/> is ignored in favour of
    /// <paramref name="body"/>.</param>
    /// <param name="body">The body bytes to send (the command's own body, or a copy of it).</param>
    /// <param name="frameMax">The negotiated frame_max; 0 means unlimited.</param>
    public static void Write(
        IBufferWriter<byte> output,
        in OutgoingCommand command,
        ReadOnlySpan<byte> body,
        int frameMax
    )
    {
        ArgumentNullException.ThrowIfNull(output);
        output.Write(command.Frames.Span);
        FrameFormat.WriteBodyFrames(output, command.Channel, body, frameMax);
    }

    /// <summary>Throws when a flush did not deliver: <see cref="OperationCanceledException"/> when it was cancelled
    /// (<see cref="PipeWriter.CancelPendingFlush"/>), <see cref="IOException"/> when the reader side has
    /// completed.</summary>
    public static void ThrowIfNotDelivered(FlushResult result)
    {
        if (result.IsCanceled)
            throw new OperationCanceledException("The flush was cancelled (PipeWriter.CancelPendingFlush).");
        if (result.IsCompleted)
            throw new IOException("The output's reader has completed: the flushed bytes cannot be delivered.");
    }
}
