using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer (lock, write, flush, release) that tells a dead connection from a bad command
/// by the exception's type: an <see cref="IOException"/> from the write or the flush (a reset, a broken pipe, a reader
/// that completed), or a cancelled flush (disposal giving up), stops the writer for good, while any other exception "is
/// a bug in this command, not the connection's": it fails that call with the exception as it came and leaves the writer
/// running. A transport that fails with something else (a <see cref="System.Net.Sockets.SocketException"/> straight
/// from a socket, an <see cref="ObjectDisposedException"/> from a disposed stream, an
/// <see cref="InvalidOperationException"/> from a completed pipe) leaves the writer writing into the failed output, and
/// later calls succeed or fail one by one instead of all failing with <see cref="FrameWriterFaultedException"/>.
/// </summary>
public sealed class FaultOnlyOnIOExceptionWriter(WriterContext context)
    : InlineZooWriter(context, "fault-only-on-ioexception")
{
    /// <inheritdoc />
    // BUG: only an IOException (or a cancelled flush) is taken for the connection's failure; anything else fails this
    // call alone.
    protected override bool StopsOn(Exception failure) => failure is IOException or OperationCanceledException;
}
