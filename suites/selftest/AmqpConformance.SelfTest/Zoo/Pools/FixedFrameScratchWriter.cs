using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that assembles each body frame (header, payload, frame end) in a
/// per-connection scratch buffer rented once, of frame_max bytes but capped at the largest frame "RabbitMQ ever
/// negotiates": its default frame_max of 131072. With frame_max 0 (unlimited, no frame size to plan for) it writes body
/// frames straight into the output instead. A broker configured with a larger frame_max (RabbitMQ allows it) makes a
/// full body frame longer than the scratch: the copy throws, the writer stops and every later call fails. At any
/// frame_max up to 131072, and at 0, it is correct.
/// </summary>
public sealed class FixedFrameScratchWriter(WriterContext context)
    : FrameScratchZooWriter(context, "fixed-frame-scratch")
{
    // frame_max is whatever the broker offered, not at most 131072.
    private const int LargestFrame = 131072;

    /// <inheritdoc />
    protected override int ScratchLength(int frameMax) => Math.Min(frameMax, LargestFrame); // BUG: a larger negotiated frame_max overflows it
}
