namespace AmqpConformance.Properties.Running;

/// <summary>Writer code a harness thread went into for a call (<see cref="CallTrace.Inside"/>), and when, on the case's
/// clock.</summary>
internal sealed record HarnessInside(string What, TimeSpan Since);
