namespace AmqpConformance.Harness.Writers;

/// <summary>The reference writers as factories, by the names reports and test traits use.</summary>
public static class WriterModes
{
    /// <summary><see cref="BackgroundChannelWriter"/>: bounded channel + copy, completes on enqueue ("Background",
    /// <see cref="WriterCompletion.OnAccept"/>).</summary>
    public static FrameWriterFactory Background { get; } =
        FrameWriterFactory.Create(
            "Background",
            context => new BackgroundChannelWriter(context),
            WriterCompletion.OnAccept
        );

    /// <summary><see cref="InlineSemaphoreWriter"/>: semaphore, no copy, completes after its flush ("Inline",
    /// <see cref="WriterCompletion.AfterFlush"/>).</summary>
    public static FrameWriterFactory Inline { get; } =
        FrameWriterFactory.Create("Inline", context => new InlineSemaphoreWriter(context), WriterCompletion.AfterFlush);

    /// <summary><see cref="CoalescingWriter"/>: queue without copy, one flush per batch, completes after it
    /// ("Coalescing", <see cref="WriterCompletion.AfterFlush"/>).</summary>
    public static FrameWriterFactory Coalescing { get; } =
        FrameWriterFactory.Create("Coalescing", context => new CoalescingWriter(context), WriterCompletion.AfterFlush);

    /// <summary>All reference writers.</summary>
    public static IReadOnlyList<FrameWriterFactory> All { get; } = [Background, Inline, Coalescing];

    /// <summary>The reference writer called <paramref name="name"/> ("background", "inline" or "coalescing",
    /// case-insensitive), or null.</summary>
    public static FrameWriterFactory? FromName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return All.FirstOrDefault(f => f.Name.Equals(name.Trim(), StringComparison.OrdinalIgnoreCase));
    }
}
