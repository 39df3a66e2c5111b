namespace AmqpConformance.Harness.Writers;

/// <summary>
/// When a writer's <see cref="IFrameWriter.WriteAsync"/> completes successfully, as its
/// <see cref="FrameWriterFactory"/> declares it (<see cref="FrameWriterFactory.Completion"/>). The declaration is a
/// promise to callers, and the harness holds the writer to it: the faults invariant's
/// <c>succeeded-but-not-delivered</c> rule is judged only for <see cref="AfterFlush"/>.
/// </summary>
public enum WriterCompletion
{
    /// <summary>Not declared (the default). The harness judges the writer as it always has: a call that reported
    /// success but whose command never reached the broker is excused when a transport fault happened, because a writer
    /// that completes on accept may lose what it accepted when the connection dies.</summary>
    Unspecified = 0,

    /// <summary>A call completes successfully only after its whole command was written to
    /// <see cref="WriterContext.Output"/> and a <see cref="System.IO.Pipelines.PipeWriter.FlushAsync"/> that covered
    /// every one of its bytes returned a result with neither <see cref="System.IO.Pipelines.FlushResult.IsCompleted"/>
    /// nor <see cref="System.IO.Pipelines.FlushResult.IsCanceled"/> (it did not throw). A flush that throws, reports
    /// the reader completed or was cancelled is not a successful delivery: unless a later flush succeeds with those
    /// bytes before the call completes, the calls whose bytes it carried must fail (or be cancelled), even when a
    /// transport fault explains the loss. Bytes a successful flush handed on and the transport lost afterwards are not
    /// the writer's fault. The reference <see cref="InlineSemaphoreWriter"/> and <see cref="CoalescingWriter"/>
    /// complete this way.</summary>
    AfterFlush = 1,

    /// <summary>A call may complete successfully as soon as the writer accepted its command (queued it, copying the
    /// body if it needs to), before any of its bytes were flushed; an accepted command may then be lost if the output
    /// fails before the writer's loop flushes it. The reference <see cref="BackgroundChannelWriter"/> (RabbitMQ.Client
    /// 7.x's design) completes this way. Judged like <see cref="Unspecified"/>.</summary>
    OnAccept = 2,
}
