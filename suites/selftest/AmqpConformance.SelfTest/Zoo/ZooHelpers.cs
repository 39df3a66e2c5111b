using System.Buffers;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>What the zoo's writers do correctly alike (so that each one's bug is the only thing wrong with it): wait
/// for a lock and release the command if that wait is cancelled; refuse a call on entry; write (and flush) a command,
/// stopping the writer on a failure; build the exceptions a stopped writer throws.</summary>
internal static class ZooHelpers
{
    /// <summary>Waits for <paramref name="gate"/>; if the wait is cancelled, releases the command (the writer owns it
    /// from the call on) before the cancellation propagates.</summary>
    public static async ValueTask EnterOrReleaseAsync(
        this SemaphoreSlim gate,
        OutgoingCommand command,
        ArrayPool<byte> pool,
        CancellationToken cancellationToken
    )
    {
        try
        {
            await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            command.Release(pool);
            throw;
        }
    }

    /// <summary>The write step the inline zoo writers share (and get right), under the caller's lock: writes
    /// <paramref name="command"/>'s frames into the output. If that fails, the writer has stopped: the failure goes to
    /// <paramref name="recordFault"/>, the command is released and the call throws <see cref="Faulted"/>. On success
    /// the command is still the caller's to release.</summary>
    public static void WriteOrStop(
        WriterContext context,
        in OutgoingCommand command,
        string writer,
        Action<Exception> recordFault
    )
    {
        try
        {
            CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
        }
        catch (Exception ex)
        {
            recordFault(ex);
            command.Release(context.Pool);
            throw Faulted(writer, ex);
        }
    }

    /// <summary>As <see cref="WriteOrStop"/>, then one flush (which must deliver:
    /// <see cref="CommandFraming.ThrowIfNotDelivered"/>) and the command's release once it went out; a failed flush
    /// stops the writer the same way.</summary>
    public static async ValueTask WriteFlushReleaseAsync(
        WriterContext context,
        OutgoingCommand command,
        string writer,
        Action<Exception> recordFault
    )
    {
        try
        {
            CommandFraming.Write(context.Output, command, command.Body.Span, context.FrameMax);
            CommandFraming.ThrowIfNotDelivered(
                await context.Output.FlushAsync(CancellationToken.None).ConfigureAwait(false)
            );
        }
        catch (Exception ex)
        {
            recordFault(ex);
            command.Release(context.Pool);
            throw Faulted(writer, ex);
        }
        command.Release(context.Pool);
    }

    /// <summary>The disposal the lock-based zoo writers share (and get right): waits for the call in progress to let go
    /// of <paramref name="gate"/> within the drain timeout; if it does not, hands <paramref name="recordFault"/> the
    /// reason (so later calls fail), cancels the pending flush and waits once more, bounded by
    /// <see cref="WriterContext.GiveUpWait"/> in real time (the first wait runs on
    /// <see cref="WriterContext.TimeProvider"/>'s clock): the call in progress ends as soon as its thread runs, and
    /// returning before that would let it touch the output after disposal returned.</summary>
    public static async ValueTask DrainAsync(
        this SemaphoreSlim gate,
        WriterContext context,
        Action<Exception> recordFault
    )
    {
        if (await gate.WaitAsync(context.DrainTimeout, context.TimeProvider).ConfigureAwait(false))
        {
            gate.Release();
            return;
        }
        recordFault(new TimeoutException("DisposeAsync gave up on the call in progress."));
        context.Output.CancelPendingFlush();
        if (await gate.WaitAsync(context.GiveUpWait).ConfigureAwait(false))
            gate.Release();
    }

    /// <summary>The give-up the loop-based zoo writers share (and get right) once their loop did not end within the
    /// drain timeout: hands <paramref name="recordFault"/> the reason (so later calls fail), stops the loop through
    /// <paramref name="stop"/>, cancels the pending flush, and waits for the loop within the give-up wait
    /// (<see cref="EndsWithinAsync"/>).</summary>
    public static async Task GiveUpOnAsync(
        this Task loop,
        WriterContext context,
        CancellationTokenSource stop,
        Action<Exception> recordFault
    )
    {
        recordFault(new TimeoutException("DisposeAsync gave up draining."));
        await stop.CancelAsync().ConfigureAwait(false);
        context.Output.CancelPendingFlush();
        await loop.EndsWithinAsync(context, gaveUp: true).ConfigureAwait(false);
    }

    /// <summary>Waits for a writer's loop to end; true if it did. Before the writer gave up draining, within the drain
    /// timeout on <see cref="WriterContext.TimeProvider"/>'s clock (the harness may skip it once the output is stalled
    /// on purpose); after it gave up (its stop requested, its flush cancelled), within
    /// <see cref="WriterContext.GiveUpWait"/> of real time: the loop then ends as soon as its thread runs, and
    /// returning from disposal before that would let it write after disposal returned (CI saw that on a loaded machine
    /// when this second wait was the 25 ms drain timeout).</summary>
    public static async Task<bool> EndsWithinAsync(this Task loop, WriterContext context, bool gaveUp)
    {
        try
        {
            await (
                gaveUp ? loop.WaitAsync(context.GiveUpWait) : loop.WaitAsync(context.DrainTimeout, context.TimeProvider)
            ).ConfigureAwait(false);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }

    /// <summary>Starts <paramref name="run"/> on a dedicated background thread named <paramref name="name"/>; returns
    /// the thread and a task that completes when <paramref name="run"/> returns, or faults with what it threw
    /// (continuations never run on that thread).</summary>
    public static (Thread Thread, Task Ended) StartThread(string name, Action run)
    {
        var ended = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                run();
                ended.SetResult();
            }
            catch (Exception ex)
            {
                ended.SetException(ex);
            }
        })
        {
            IsBackground = true,
            Name = name,
        };
        thread.Start();
        return (thread, ended.Task);
    }

    /// <summary>The exception for a call refused because the writer stopped on <paramref name="cause"/>.</summary>
    public static FrameWriterFaultedException Faulted(string writer, Exception cause) =>
        new(
            $"The {writer} writer has stopped ({cause.GetType().Name}: {cause.Message}); the command was not written.",
            cause
        );

    /// <summary>The exception for a call refused because the writer was disposed.</summary>
    public static ObjectDisposedException Disposed(string writer) =>
        new(writer, "The writer was disposed; the command was not written.");

    /// <summary>Serializes <paramref name="command"/> whole (its frames, then its body as frames of frame_max - 8
    /// bytes) into <paramref name="destination"/>, which must hold <see cref="OutgoingCommand.WireLength"/> bytes;
    /// returns the bytes written.</summary>
    public static int WriteWholeCommand(Span<byte> destination, in OutgoingCommand command, int frameMax)
    {
        command.Frames.Span.CopyTo(destination);
        int position = command.FramesLength;
        int max = Protocol.AmqpConstants.MaxBodyFramePayload(frameMax);
        var body = command.Body.Span;
        while (!body.IsEmpty)
        {
            var chunk = body[..Math.Min(max, body.Length)];
            Protocol.FrameFormat.WriteHeader(
                destination[position..],
                Protocol.FrameType.Body,
                command.Channel,
                chunk.Length
            );
            position += Protocol.AmqpConstants.FrameHeaderSize;
            chunk.CopyTo(destination[position..]);
            position += chunk.Length;
            destination[position++] = Protocol.AmqpConstants.FrameEnd;
            body = body[chunk.Length..];
        }
        return position;
    }

    /// <summary>The check every zoo writer makes on entry: a stopped writer (<paramref name="stopped"/>, from
    /// <see cref="Stopped"/>) fails the call, a token already cancelled cancels it, and either way the command is
    /// released first. Null when the call may go on.</summary>
    public static ValueTask? RefuseOnEntry(
        Exception? stopped,
        OutgoingCommand command,
        ArrayPool<byte> pool,
        CancellationToken cancellationToken
    )
    {
        if (stopped is null && !cancellationToken.IsCancellationRequested)
            return null;
        command.Release(pool);
        return stopped is not null ? ValueTask.FromException(stopped) : ValueTask.FromCanceled(cancellationToken);
    }

    /// <summary>The stop exception for a writer with fault cause <paramref name="cause"/> and disposed flag
    /// <paramref name="disposed"/>, or null while it runs.</summary>
    public static Exception? Stopped(string writer, Exception? cause, int disposed) =>
        cause is not null ? Faulted(writer, cause)
        : disposed != 0 ? Disposed(writer)
        : null;
}

/// <summary>A command in a zoo writer's queue, with its body copied into a pooled buffer (or, when it carried a body
/// owner or the writer chose not to copy, the caller's memory); the same shape as the reference background writer's
/// queue entries.</summary>
internal readonly struct StagedCommand
{
    private readonly byte[]? _bodyCopy;
    private readonly int _bodyLength;

    private StagedCommand(OutgoingCommand command, byte[]? bodyCopy, int bodyLength)
    {
        Command = command;
        _bodyCopy = bodyCopy;
        _bodyLength = bodyLength;
    }

    public OutgoingCommand Command { get; }

    public ReadOnlySpan<byte> Body => _bodyCopy is null ? Command.Body.Span : _bodyCopy.AsSpan(0, _bodyLength);

    public long WireLength(int frameMax) => Command.WireLength(frameMax);

    /// <summary>Bytes this entry holds from the pool (the body copy, if any).</summary>
    public int CopiedBytes => _bodyCopy is null ? 0 : _bodyLength;

    /// <summary>Copies the body into a buffer from <paramref name="pool"/> unless an owner came with it or it is
    /// empty.</summary>
    public static StagedCommand Copy(OutgoingCommand command, ArrayPool<byte> pool)
    {
        if (command.BodyOwner is not null || command.Body.IsEmpty)
            return new StagedCommand(command, null, 0);
        int length = command.Body.Length;
        byte[] copy = pool.Rent(length);
        command.Body.Span.CopyTo(copy);
        return new StagedCommand(command, copy, length);
    }

    /// <summary>Wraps <paramref name="command"/> without copying its body.</summary>
    public static StagedCommand NoCopy(OutgoingCommand command) => new(command, null, 0);

    /// <summary>Wraps <paramref name="command"/> with a body copy the caller already made into
    /// <paramref name="copy"/>.</summary>
    public static StagedCommand WithCopy(OutgoingCommand command, byte[] copy, int length) =>
        new(command, copy, length);

    /// <summary>Returns the body copy and releases the command. Exactly once.</summary>
    public void Release(ArrayPool<byte> pool)
    {
        if (_bodyCopy is not null)
            pool.Return(_bodyCopy);
        Command.Release(pool);
    }
}
