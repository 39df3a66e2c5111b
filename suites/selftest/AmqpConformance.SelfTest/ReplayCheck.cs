namespace AmqpConformance.SelfTest;

/// <summary>How often a failure's printed replay token brought it back.</summary>
/// <param name="Replays">Replays run.</param>
/// <param name="Reproduced">Replays in which the case failed again (within the replay's attempts).</param>
/// <param name="OnFirstAttempt">Replays in which it failed again on the first attempt.</param>
public sealed record ReplayCheck(int Replays, int Reproduced, int OnFirstAttempt);
