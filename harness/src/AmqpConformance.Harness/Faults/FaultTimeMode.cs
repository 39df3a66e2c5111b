namespace AmqpConformance.Harness.Faults;

/// <summary>How a <see cref="FaultClock"/> passes time.</summary>
public enum FaultTimeMode
{
    /// <summary>Delays are computed and recorded but never slept: time jumps forward instantly. For fast,
    /// deterministic property runs. Holds that wait for the test (stalls without a duration, black holes
    /// without a timeout) still wait; timed ones end at once.</summary>
    Virtual,

    /// <summary>Delays are slept on the <see cref="TimeProvider"/>.</summary>
    Real,
}
