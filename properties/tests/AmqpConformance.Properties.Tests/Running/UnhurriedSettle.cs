using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>Run options for the tests whose fixed script must catch a broken writer every time, also on a loaded CI
/// machine.</summary>
internal static class UnhurriedSettle
{
    /// <summary>Each step settles for at least 20 ms of real time (<see cref="WriterRunOptions.SettleFloor"/>). Without
    /// it, the worker holding the writer's next move (completing a piggybacked call, returning from disposal) could be
    /// off the CPU while the settle found nothing moving, and the script's next step overtook it: PulseTests and
    /// DisposalFlushTests missed their writer in 2 and 1 of 6 runs beside the interleaving tests.</summary>
    public static readonly WriterRunOptions Options = new() { SettleFloor = TimeSpan.FromMilliseconds(20) };
}
