using System.Buffers.Binary;
using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that builds body frame headers in a scratch buffer it rents from the pool
/// once, when it is made, and gives back in DisposeAsync, but outside the once-only guard: every call of DisposeAsync
/// returns the scratch buffer, so disposing twice (a Close() and then await using's own, or two owners at once) returns
/// it twice, and two later renters share one array. Writing, faults and a single disposal are all correct.
/// </summary>
public sealed class DisposeTwiceReturnsScratchWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "dispose-twice-returns-scratch";
    private readonly byte[] _scratch = context.Pool.Rent(AmqpConstants.FrameHeaderSize);
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
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                throw stopped;
            }
            try
            {
                WriteCommand(context.Output, command, context.FrameMax, _scratch);
                CommandFraming.ThrowIfNotDelivered(
                    await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
                );
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

    private static void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax, byte[] scratch)
    {
        output.Write(command.Frames.Span);
        int max = AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            Span<byte> header = scratch.AsSpan(0, AmqpConstants.FrameHeaderSize);
            header[0] = (byte)FrameType.Body;
            BinaryPrimitives.WriteUInt16BigEndian(header[1..], command.Channel);
            BinaryPrimitives.WriteUInt32BigEndian(header[3..], (uint)chunk.Length);
            output.Write(header);
            output.Write(chunk);
            output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
            output.Advance(1);
            body = body[chunk.Length..];
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
            await _lock
                .DrainAsync(context, gaveUp => Interlocked.CompareExchange(ref _fault, gaveUp, null))
                .ConfigureAwait(false);
        context.Pool.Return(_scratch); // BUG: outside the guard above, so every DisposeAsync returns it.
    }

    private Exception? Stopped() => ZooHelpers.Stopped(Name, Volatile.Read(ref _fault), Volatile.Read(ref _disposed));
}
