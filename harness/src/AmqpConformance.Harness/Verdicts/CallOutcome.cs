namespace AmqpConformance.Harness.Verdicts;

/// <summary>How a publish call ended, as its caller saw it.</summary>
public enum CallOutcome
{
    /// <summary>The call never completed (within the harness's time limit): a hang.</summary>
    Pending,

    /// <summary>The call completed successfully.</summary>
    Succeeded,

    /// <summary>The call threw something other than <see cref="OperationCanceledException"/>.</summary>
    Failed,

    /// <summary>The call threw <see cref="OperationCanceledException"/>.</summary>
    Cancelled,
}
