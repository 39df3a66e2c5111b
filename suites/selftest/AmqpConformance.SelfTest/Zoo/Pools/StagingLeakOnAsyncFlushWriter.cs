using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Pools;

/// <summary>
/// DELIBERATELY BROKEN: a one-buffer-per-command inline writer (serialize the whole command into one pooled buffer, one
/// Write, one flush) built like the reference inline writer, with a synchronous fast path for a flush that completes at
/// once and an async continuation for one that does not. The staging buffer goes back to the pool on the fast path
/// only: whenever the flush has to wait (the output is above its pause threshold, or the transport is slow), the buffer
/// leaks.
/// </summary>
public sealed class StagingLeakOnAsyncFlushWriter(WriterContext context) : IFrameWriter
{
    private const string Name = "staging-leak-on-async-flush";
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private int _disposed;

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (ZooHelpers.RefuseOnEntry(Stopped(), command, context.Pool, cancellationToken) is { } refused)
            return refused;
        if (_lock.Wait(0))
            return WriteHoldingLock(command);
        return WaitThenWriteAsync(command, cancellationToken);
    }

    private async ValueTask WaitThenWriteAsync(OutgoingCommand command, CancellationToken cancellationToken)
    {
        await _lock.EnterOrReleaseAsync(command, context.Pool, cancellationToken).ConfigureAwait(false);
        await WriteHoldingLock(command).ConfigureAwait(false);
    }

    private ValueTask WriteHoldingLock(OutgoingCommand command)
    {
        bool handedOff = false;
        byte[]? staging = null;
        try
        {
            if (Stopped() is { } stopped)
            {
                command.Release(context.Pool);
                return ValueTask.FromException(stopped);
            }
            int length = checked((int)command.WireLength(context.FrameMax));
            staging = context.Pool.Rent(length);
            int written = ZooHelpers.WriteWholeCommand(staging, command, context.FrameMax);
            context.Output.Write(staging.AsSpan(0, written));
            ValueTask<FlushResult> flush = context.Output.FlushAsync(CancellationToken.None);
            if (flush.IsCompletedSuccessfully)
            {
                CommandFraming.ThrowIfNotDelivered(flush.Result);
                context.Pool.Return(staging);
                staging = null;
                command.Release(context.Pool);
                return default;
            }
            handedOff = true;
            // BUG: the staging buffer is not handed to the async path, which therefore never returns it.
            staging = null;
            return AwaitFlushAsync(flush, command);
        }
        catch (Exception ex)
        {
            if (staging is not null)
                context.Pool.Return(staging);
            return ValueTask.FromException(Fault(ex, command));
        }
        finally
        {
            if (!handedOff)
                _lock.Release();
        }
    }

    private async ValueTask AwaitFlushAsync(ValueTask<FlushResult> flush, OutgoingCommand command)
    {
        try
        {
            CommandFraming.ThrowIfNotDelivered(await flush.ConfigureAwait(false));
            command.Release(context.Pool);
        }
        catch (Exception ex)
        {
            throw Fault(ex, command);
        }
        finally
        {
            _lock.Release();
        }
    }

    private FrameWriterFaultedException Fault(Exception cause, OutgoingCommand command)
    {
        Interlocked.CompareExchange(ref _fault, cause, null);
        command.Release(context.Pool);
        return ZooHelpers.Faulted(Name, cause);
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
