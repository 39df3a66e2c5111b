namespace AmqpConformance.Properties.Scenarios;

/// <summary>When a publish's cancellation token fires.</summary>
public enum CancelKind
{
    /// <summary>Never.</summary>
    None,

    /// <summary>Before the call: the token is already cancelled.</summary>
    Before,

    /// <summary>Inside the writer: when the output sees its n-th flush after the call started (n =
    /// <see cref="CallStep.CancelAfterFlushes"/>).</summary>
    OnFlush,

    /// <summary>Right after the call started, from another thread, racing the writer.</summary>
    Racing,

    /// <summary>After the call completed: the token of a request that has ended is cancelled (an HTTP request aborted
    /// after its publish went out), at writer level just after the next call of the case was handed to the writer. The
    /// call is over, so nothing may happen to it or to any other call; a writer that left a registration on the token
    /// (a pooled entry now serving the next caller) cancels the wrong call.</summary>
    AfterCompletion,

    /// <summary>Inside the writer: when it asks the output for memory (GetMemory, GetSpan) the n-th time after the call
    /// started (n = <see cref="CallStep.CancelAfterFlushes"/>): after a loop took the queued call and checked its
    /// token, before it wrote the call's bytes. Fired from another thread, as a real cancellation is, while the request
    /// waits for it a little (<c>ControlledOutput.MemoryTriggerWait</c>); at client level, where the harness does not
    /// own the output, it races the call as <see cref="Racing"/> does.</summary>
    OnWrite,
}
