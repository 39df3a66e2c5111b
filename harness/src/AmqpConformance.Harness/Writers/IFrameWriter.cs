namespace AmqpConformance.Harness.Writers;

/// <summary>
/// The part of an AMQP client that turns commands into bytes on its output: the thing this project judges.
/// </summary>
/// <remarks>
/// <para>The contract, checked by the conformance suites (each clause names the invariant that checks it):</para>
/// <list type="bullet">
/// <item><b>wire-format, command-shape, no-interleaving:</b> each command reaches <see cref="WriterContext.Output"/>
/// whole and contiguous: its method frame, its content header frame, then its body as frames of frame_max - 8 bytes
/// (the last one shorter, none for an empty body), with no other command's bytes in between.</item>
/// <item><b>bodies:</b> when <see cref="WriteAsync"/> completes (successfully or not) the writer no longer touches the
/// caller's body memory, unless the command carried a body owner.</item>
/// <item><b>order:</b> commands whose calls do not overlap reach the output in call order; calls that overlap (a
/// pipelining caller's included: it makes its next call before it awaits the previous one) may go out in either order;
/// a call that succeeded is on the wire exactly once unless the transport failed.</item>
/// <item><b>pools:</b> the writer releases each command exactly once (<see cref="OutgoingCommand.Release"/>), after its
/// bytes are out or when it gives up on it, including on faults, cancellation and disposal; everything it rents from
/// <see cref="WriterContext.Pool"/> comes back exactly once.</item>
/// <item><b>visibility:</b> once a call has completed successfully, its bytes reach the output's reader (are flushed)
/// without any further action by the caller: no later call, no disposal, no completion of the output. A writer may
/// flush from its own background loop, but within a bounded time (the harness waits
/// <c>WriterRunOptions.VisibilityBound</c>).</item>
/// <item><b>cancellation:</b> all or nothing: a call that ends in <see cref="OperationCanceledException"/> put none of
/// its command on the wire, and never will; the output never ends inside a frame or a command because of a
/// cancellation.</item>
/// <item><b>faults:</b> after the output faults (a flush throws or reports its reader completed) no more bytes are
/// written; pending calls fail promptly with a clear exception; once a call has failed because of the fault every later
/// call fails, and every call that starts a short grace period after the writer saw the fault fails.</item>
/// <item><b>backpressure:</b> while the output accepts nothing, at most <see cref="WriterContext.QueueCapacity"/> + 1
/// calls complete successfully without their bytes having been flushed, and the memory the writer holds stays bounded
/// accordingly; further callers wait (or fail).</item>
/// <item><b>lifecycle:</b> <see cref="IAsyncDisposable.DisposeAsync"/> gives up on a stalled output after
/// <see cref="WriterContext.DrainTimeout"/> and returns within twice that even if the output never accepts another
/// byte; every call pending when disposal starts completes (successfully only if its command went out before disposal
/// returned); a call that starts after disposal returned fails and writes nothing; nothing is written or flushed after
/// disposal returned (a flush still pending then must have been cancelled with
/// <see cref="System.IO.Pipelines.PipeWriter.CancelPendingFlush"/>). Disposing more than once is harmless, as for any
/// <see cref="IAsyncDisposable"/>: a second call, after the first returned or alongside it, returns without throwing
/// and releases, writes and completes nothing a second time (a call made alongside may wait for the first).</item>
/// </list>
/// <para>The <see cref="ValueTask"/> <see cref="WriteAsync"/> returns is awaited once, possibly long after the call
/// completed (a pipelining caller makes dozens of calls before it awaits the first), and the harness's output hands out
/// flushes that, like a socket pipe's, may be awaited once.</para>
/// <para>The harness also runs every byte through its fake broker (<b>broker</b> invariant): whatever RabbitMQ would
/// refuse, and in the strict profile what RabbitMQ lets through but an atomic writer must not do, fails the
/// case.</para>
/// </remarks>
public interface IFrameWriter : IAsyncDisposable
{
    /// <summary>Writes <paramref name="command"/>, taking ownership of its rented frames and body owner. What
    /// "completes" means (enqueued or flushed) is the writer's to document; the invariants above hold either
    /// way.</summary>
    ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default);
}
