using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): serializes each command whole (frames and body frames) into one buffer rented from the pool
/// before taking its lock, then writes it with a single Write and a single flush under the lock; completes after the
/// flush. The body is read only during the call; cancellation is honoured only while waiting for the lock; a fault
/// stops the writer for good. Memory: one command-sized buffer per caller in flight.
/// </summary>
public sealed class OneBufferPerCommandWriter(WriterContext context)
    : WholeImageZooWriter(context, "one-buffer-per-command")
{
    /// <inheritdoc />
    protected override byte[] StageImage(OutgoingCommand command, out int written)
    {
        byte[] image = Context.Pool.Rent(checked((int)command.WireLength(Context.FrameMax)));
        try
        {
            written = ZooHelpers.WriteWholeCommand(image, command, Context.FrameMax);
            return image;
        }
        catch
        {
            Context.Pool.Return(image);
            throw;
        }
    }
}
