using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that stages the body in a buffer rented from the pool and, when the output
/// throws, rethrows without returning the staging buffer or releasing the command (its rented frames leak and its
/// body owner is never disposed). On a healthy output everything comes back; only a failing transport exposes it.
/// </summary>
public sealed class LeakOnFaultWriter(WriterContext context) : IFrameWriter
{
    private readonly SemaphoreSlim _lock = new(1, 1);

    public async ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        try
        {
            int length = command.Body.Length;
            byte[] staging = context.Pool.Rent(length);
            command.Body.Span.CopyTo(staging);
            CommandFraming.Write(context.Output, command, staging.AsSpan(0, length), context.FrameMax);
            CommandFraming.ThrowIfNotDelivered(
                await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
            // BUG: only the success path gives anything back.
            context.Pool.Return(staging);
            command.Release(context.Pool);
        }
        finally
        {
            _lock.Release();
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _lock.WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
    }
}
