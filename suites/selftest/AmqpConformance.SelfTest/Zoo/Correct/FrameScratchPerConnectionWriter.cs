using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// Correct but unusual: an inline writer that assembles each body frame (header, payload, frame end) in one
/// frame_max-sized scratch buffer per connection, rented from the context pool on first use and returned by the first
/// DisposeAsync; at frame_max 0 it writes body frames straight into the output. It holds one frame's worth of memory
/// for the connection's lifetime, whether or not the output is stalled: bounded, and so within the backpressure
/// invariant (which once counted it as unbounded buffering when the case's commands were small).
/// </summary>
public sealed class FrameScratchPerConnectionWriter(WriterContext context)
    : FrameScratchZooWriter(context, "frame-scratch-per-connection")
{
    /// <inheritdoc />
    protected override int ScratchLength(int frameMax) => frameMax;
}
