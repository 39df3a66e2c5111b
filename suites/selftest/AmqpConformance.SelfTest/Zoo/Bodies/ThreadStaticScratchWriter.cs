using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: A one-buffer-per-command writer that avoids renting per call: each thread keeps a
/// [ThreadStatic] scratch buffer (grown as needed, never returned: "one per thread, like StringBuilderCache"), and to
/// keep the lock short a call serializes its command into its thread's scratch before it waits for the lock. The call
/// holds on to that array across the await. When the lock is contended the call resumes later (on whatever thread), and
/// meanwhile the thread it started on has run another call, which serialized a different command into the same array:
/// the first call then writes the second call's bytes (a duplicated publish, a lost one, or a torn mixture if the
/// second command was shorter). Uncontended calls never await and are always right.
/// </summary>
public sealed class ThreadStaticScratchWriter(WriterContext context)
    : WholeImageZooWriter(context, "thread-static-scratch")
{
    [ThreadStatic]
    private static byte[]? t_scratch;

    /// <inheritdoc />
    protected override byte[] StageImage(OutgoingCommand command, out int written)
    {
        int length = checked((int)command.WireLength(Context.FrameMax));
        // BUG: the array stays this thread's, and the call holds it across its wait for the lock.
        byte[] image =
            t_scratch is { } mine && mine.Length >= length ? mine : (t_scratch = new byte[Math.Max(length, 4096)]);
        written = ZooHelpers.WriteWholeCommand(image, command, Context.FrameMax);
        return image;
    }

    /// <inheritdoc />
    protected override void ReleaseImage(byte[] image)
    {
        // The thread's scratch is kept, not returned.
    }
}
