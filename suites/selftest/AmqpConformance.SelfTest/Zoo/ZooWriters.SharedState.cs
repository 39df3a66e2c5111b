using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo.SharedState;

namespace AmqpConformance.SelfTest.Zoo;

/// <content>The writers that share state between instances: right on one connection, wrong only when two writers from
/// one factory run at once (cases on several connections, <c>Scenario.Connections</c>).</content>
public static partial class ZooWriters
{
    /// <summary>The shared-state entries (a method, as <see cref="RedTeamRounds"/> is).</summary>
    private static ZooEntry[] SharedStateWriters() =>
        [
            E(
                c => new StaticStagingBufferWriter(c),
                BugClass.Bodies,
                "Serializes each command, under the instance's lock, into one static staging buffer for the whole process, then copies it into the output: two connections writing at once serialize into the same array.",
                "Two writers from the factory writing at the same moment on two connections.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new SharedPoolSlabWriter(c),
                BugClass.Pools,
                "Frames bodies in a slab shared by every instance, rented from the first writer's pool and returned by the last one disposed, to its own pool.",
                "Two writers alive at once on two connections, the one whose pool did not lend the slab disposed last.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new SharedFrameSplitCacheWriter(c),
                BugClass.CommandShape,
                "Caches how many bytes each body frame carries per body length, in a cache every instance shares, computed with the frame_max of whichever connection framed that length first.",
                "Two writers at once on connections with different frame_max, publishing bodies of one length that needs more than one frame on either.",
                WriterCompletion.AfterFlush
            ),
        ];
}
