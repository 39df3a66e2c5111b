using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: A one-buffer-per-command writer that avoids renting per call: each thread keeps a [ThreadStatic] scratch
/// buffer (grown as needed, never returned: "one per thread, like StringBuilderCache"), and to keep the lock short a call serializes
/// its command into its thread's scratch before it waits for the lock. The call holds on to that array across the await. When the
/// lock is contended the call resumes later (on whatever thread), and meanwhile the thread it started on has run another call,
/// which serialized a different command into the same array: the first call then writes the second call's bytes (a duplicated
/// publish, a lost one, or a torn mixture if the second command was shorter). Uncontended calls never await and are always right.
/// </summary>
public sealed class ThreadStaticScratchWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "thread-static-scratch";
    [ThreadStatic] private static byte[]? t_scratch;
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    /// <inheritdoc />
    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        int length = checked((int)command.WireLength(context.FrameMax));
        byte[] image = t_scratch is { } mine && mine.Length >= length ? mine : (t_scratch = new byte[Math.Max(length, 4096)]);
        int written = ZooHelpers.WriteWholeCommand(image, command, context.FrameMax);
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false); // BUG: image is shared with this thread's later calls
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            try
            {
                context.Output.Write(image.AsSpan(0, written));
                CommandFraming.ThrowIfNotDelivered(await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false));
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _fault, ex, null);
                command.Release(context.Pool);
                throw ZooHelpers.Faulted(Name, ex);
            }
            command.Release(context.Pool);
        }
        finally
        {
            _lock.Release();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        await _lock.DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null)).ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
