using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.SharedState;

/// <summary>
/// DELIBERATELY BROKEN: (state shared between instances) an inline writer that, under its lock, serializes each
/// command whole into a staging buffer and copies that into the output in one write. The staging buffer is a static,
/// one for the process ("it is only ever used under the lock, so one is enough"), but the lock is the instance's: two
/// connections writing at the same moment serialize into the same array, and one connection's frames carry the other's
/// bytes. One connection at a time, every call is right.
/// </summary>
public sealed class StaticStagingBufferWriter(WriterContext context) : InlineZooWriter(context, "static-staging-buffer")
{
    private static byte[] s_staging = new byte[64 * 1024];

    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        int length = checked((int)command.WireLength(frameMax));
        // BUG: one array for every instance, guarded only by this instance's lock.
        var staging = Volatile.Read(ref s_staging);
        if (staging.Length < length)
            Volatile.Write(ref s_staging, staging = new byte[length]);
        int written = ZooHelpers.WriteWholeCommand(staging, command, frameMax);
        output.Write(staging.AsSpan(0, written));
    }
}
