namespace AmqpConformance.Harness.Writers;

/// <summary>
/// Thrown by a reference writer's <see cref="IFrameWriter.WriteAsync"/> once the writer has stopped because its
/// output failed (or disposal gave up on a stalled output). <see cref="Exception.InnerException"/> is the original
/// failure. A command that got this exception was released by the writer and is not on the wire, except the one
/// whose write hit the failure, which may be partly on the wire (the output itself broke).
/// </summary>
public sealed class FrameWriterFaultedException : IOException
{
    /// <summary>Creates the exception.</summary>
    public FrameWriterFaultedException(string message, Exception? innerException)
        : base(message, innerException) { }
}
