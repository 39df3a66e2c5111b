namespace AmqpConformance.Properties.Scenarios;

/// <summary>When a publish's cancellation token fires.</summary>
public enum CancelKind
{
    /// <summary>Never.</summary>
    None,
    /// <summary>Before the call: the token is already cancelled.</summary>
    Before,
    /// <summary>Inside the writer: when the output sees its n-th flush after the call started (n = <see cref="PublishStep.CancelAfterFlushes"/>).</summary>
    OnFlush,
    /// <summary>Right after the call started, from another thread, racing the writer.</summary>
    Racing,
}
