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
}
