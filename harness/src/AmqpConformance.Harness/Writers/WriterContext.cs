using System.Buffers;
using System.IO.Pipelines;

namespace AmqpConformance.Harness.Writers;

/// <summary>What a frame writer is given: where to write, what to rent from, the negotiated frame_max, and the limits
/// it must honour.</summary>
/// <param name="Output">The connection's output. The writer owns writing and flushing it; it does not complete
/// it.</param>
/// <param name="Pool">The pool every buffer the writer needs must come from (and go back to), so the harness sees each
/// rental.</param>
/// <param name="FrameMax">The negotiated frame_max; 0 means unlimited.</param>
public sealed record WriterContext(PipeWriter Output, ArrayPool<byte> Pool, int FrameMax)
{
    /// <summary>The default <see cref="QueueCapacity"/>: 128, RabbitMQ.Client's bounded channel.</summary>
    public const int DefaultQueueCapacity = 128;

    /// <summary>The default <see cref="DrainTimeout"/>: 5 seconds.</summary>
    public static readonly TimeSpan DefaultDrainTimeout = TimeSpan.FromSeconds(5);

    /// <summary>How many calls the writer may complete successfully before their bytes are flushed (its internal queue,
    /// where it has one). While the output accepts nothing, at most this many plus the one in hand may succeed; the
    /// harness varies it to make queue-full paths common. A writer that completes only after flushing never reaches
    /// it.</summary>
    public int QueueCapacity { get; init; } = DefaultQueueCapacity;

    /// <summary>How long <see cref="IAsyncDisposable.DisposeAsync"/> may wait for the output to take what the writer
    /// holds before it gives up on it (releasing the commands and failing their calls). Disposal must return within
    /// twice this even if the output never accepts another byte (plus <see cref="GiveUpWait"/> for a write in progress
    /// that a busy machine keeps off the CPU); the harness shortens it when it keeps the output stalled through
    /// disposal. A writer may ignore it and give up on a timer of its own instead, within its factory's
    /// <see cref="FrameWriterFactory.DisposeTimeout"/> of real time.</summary>
    public TimeSpan DrainTimeout { get; init; } = DefaultDrainTimeout;

    /// <summary>The clock <see cref="DrainTimeout"/> runs on: a writer should wait for it with this provider (for
    /// example <c>task.WaitAsync(DrainTimeout, TimeProvider)</c>, or
    /// <see cref="TimedWaits.WaitAsync(SemaphoreSlim, TimeSpan, TimeProvider)"/>). The default is the system clock. The
    /// harness passes its case clock, whose timers fire when real time passes, as the system's do, or at once when the
    /// harness moves the clock forward: it does that only after the writer has settled with its output stalled on
    /// purpose, so a drain timeout that can only expire costs no real time. A writer that uses its own timers still
    /// conforms (within <see cref="FrameWriterFactory.DisposeTimeout"/>); its waits just take real time.
    /// <see cref="GiveUpWait"/> is meant as real time (it waits for a thread the machine keeps off the CPU) and should
    /// not use this clock.</summary>
    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;

    /// <summary>How long a writer that gave up draining (its flush cancelled) waits for a write already in progress to
    /// end before DisposeAsync returns: at least the drain timeout and at least 1 s. Nothing in such a write blocks any
    /// more, so it ends as soon as its thread runs; the wait is for a thread a busy machine keeps off the CPU, whose
    /// bytes would otherwise land after DisposeAsync returned.</summary>
    public TimeSpan GiveUpWait => DrainTimeout > TimeSpan.FromSeconds(1) ? DrainTimeout : TimeSpan.FromSeconds(1);
}
