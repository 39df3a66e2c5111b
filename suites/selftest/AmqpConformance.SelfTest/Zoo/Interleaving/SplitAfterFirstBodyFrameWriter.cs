using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Interleaving;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that, for fairness, writes a command's method, header and first body frame
/// under its lock, flushes, and, when the body needs more frames, lets go of the lock and takes it again for the rest,
/// "so small publishes on other channels are not stuck behind a large body". Commands whose body fits one frame are
/// atomic; a body that spans several frames lets another caller's command land in the middle of it.
/// </summary>
public sealed class SplitAfterFirstBodyFrameWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "split-after-first-body-frame";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (Stopped() is { } early)
        {
            command.Release(context.Pool);
            throw early;
        }
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        bool holding = true;
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            try
            {
                var output = context.Output;
                int max = AmqpConstants.MaxBodyFramePayload(context.FrameMax);
                var body = command.Body;
                output.Write(command.Frames.Span);
                var first = body[..Math.Min(max, body.Length)];
                if (!first.IsEmpty)
                    FrameFormat.WriteFrame(output, FrameType.Body, command.Channel, first.Span);
                body = body[first.Length..];
                CommandFraming.ThrowIfNotDelivered(
                    await output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
                if (!body.IsEmpty)
                {
                    // BUG: the lock is let go between the first body frame and the rest; whoever is waiting writes in
                    // between.
                    _lock.Release();
                    holding = false;
                    await _lock.WaitAsync(CancellationToken.None).ConfigureAwait(false);
                    holding = true;
                    if (Volatile.Read(ref _fault) is { } other)
                        throw new IOException("The output failed while this command was half written.", other);
                    FrameFormat.WriteBodyFrames(output, command.Channel, body.Span, context.FrameMax);
                    CommandFraming.ThrowIfNotDelivered(
                        await output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                    );
                }
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
            if (holding)
                _lock.Release();
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await _lock
            .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
            .ConfigureAwait(false);
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
