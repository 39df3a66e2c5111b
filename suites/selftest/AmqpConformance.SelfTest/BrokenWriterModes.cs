using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo.Bodies;
using AmqpConformance.SelfTest.Zoo.Cancellation;
using AmqpConformance.SelfTest.Zoo.Interleaving;
using AmqpConformance.SelfTest.Zoo.Ordering;
using AmqpConformance.SelfTest.Zoo.Pools;

namespace AmqpConformance.SelfTest;

/// <summary>The first six DELIBERATELY BROKEN writers as factories (named "Broken:..."), kept by name for the tests
/// that show each one's defect directly; the whole zoo, these included, is <see cref="Zoo.ZooWriters"/>. Each declares
/// when its calls complete (<see cref="FrameWriterFactory.Completion"/>) as it really does.</summary>
public static class BrokenWriterModes
{
    /// <summary><see cref="SplitLockWriter"/>: frames of concurrent commands interleave.</summary>
    public static FrameWriterFactory SplitLock { get; } =
        FrameWriterFactory.Create("Broken:SplitLock", c => new SplitLockWriter(c), WriterCompletion.AfterFlush);

    /// <summary><see cref="EarlyCompletionWriter"/>: completes before the body is written, without copying
    /// it.</summary>
    public static FrameWriterFactory EarlyCompletion { get; } =
        FrameWriterFactory.Create(
            "Broken:EarlyCompletion",
            c => new EarlyCompletionWriter(c),
            WriterCompletion.OnAccept
        );

    /// <summary><see cref="ThreadPoolDispatchWriter"/>: order decided by the thread pool.</summary>
    public static FrameWriterFactory ThreadPoolDispatch { get; } =
        FrameWriterFactory.Create(
            "Broken:ThreadPoolDispatch",
            c => new ThreadPoolDispatchWriter(c),
            WriterCompletion.OnAccept
        );

    /// <summary><see cref="LeakOnFaultWriter"/>: leaks rentals when the output fails.</summary>
    public static FrameWriterFactory LeakOnFault { get; } =
        FrameWriterFactory.Create("Broken:LeakOnFault", c => new LeakOnFaultWriter(c), WriterCompletion.AfterFlush);

    /// <summary><see cref="DoubleReturnWriter"/>: returns a staging buffer twice for multi-frame bodies.</summary>
    public static FrameWriterFactory DoubleReturn { get; } =
        FrameWriterFactory.Create("Broken:DoubleReturn", c => new DoubleReturnWriter(c), WriterCompletion.AfterFlush);

    /// <summary><see cref="TornCancellationWriter"/>: cancellation can leave half a frame on the wire.</summary>
    public static FrameWriterFactory TornCancellation { get; } =
        FrameWriterFactory.Create(
            "Broken:TornCancellation",
            c => new TornCancellationWriter(c),
            WriterCompletion.AfterFlush
        );

    /// <summary>Every deliberately broken writer.</summary>
    public static IReadOnlyList<FrameWriterFactory> All { get; } =
    [SplitLock, EarlyCompletion, ThreadPoolDispatch, LeakOnFault, DoubleReturn, TornCancellation];

    /// <summary>The broken writer called <paramref name="name"/> (with or without the "Broken:" prefix,
    /// case-insensitive), or null.</summary>
    public static FrameWriterFactory? FromName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        string bare = name.StartsWith("Broken:", StringComparison.OrdinalIgnoreCase) ? name["Broken:".Length..] : name;
        return All.FirstOrDefault(f => f.Name.Equals("Broken:" + bare, StringComparison.OrdinalIgnoreCase));
    }
}
