namespace AmqpConformance.Harness.Writers;

/// <summary>
/// The part of an AMQP client that turns commands into bytes on its output: the thing this project judges.
/// </summary>
/// <remarks>
/// Contract, checked by the conformance suites:
/// <list type="bullet">
/// <item>Each command reaches <see cref="WriterContext.Output"/> whole and contiguous: its method frame,
/// its content header frame, then its body as frames of frame_max - 8 bytes (the last one shorter),
/// with no other command's bytes in between.</item>
/// <item>When <see cref="WriteAsync"/> completes (successfully or not) the writer no longer touches
/// the caller's body memory, unless the command carried a body owner.</item>
/// <item>Commands whose calls do not overlap reach the output in call order.</item>
/// <item>The writer releases each command exactly once (<see cref="OutgoingCommand.Release"/>), after its
/// bytes are out or when it gives up on it, including on faults, cancellation and disposal.</item>
/// <item>Cancellation is all or nothing: a call that ends in <see cref="OperationCanceledException"/> put
/// none of its command on the wire, and never will; a call that completes successfully will be on the wire
/// unless the transport fails.</item>
/// <item>After the output faults, no more bytes are written; pending and later calls fail promptly.</item>
/// </list>
/// </remarks>
public interface IFrameWriter : IAsyncDisposable
{
    /// <summary>Writes <paramref name="command"/>, taking ownership of its rented frames and body owner.
    /// What "completes" means (enqueued or flushed) is the writer's to document; the invariants above hold either way.</summary>
    ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default);
}
