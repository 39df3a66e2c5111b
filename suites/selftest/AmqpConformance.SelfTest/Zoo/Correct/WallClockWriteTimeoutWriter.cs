using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (own timers): an inline writer with a write timeout on the system clock, as RabbitMQ.Client has one on its
/// socket: each flush runs under a <see cref="CancellationTokenSource"/> of 30 s (<c>new
/// CancellationTokenSource(TimeSpan)</c>) whose registration cancels the pending flush; a flush that comes back
/// cancelled by it stops the writer as on a dead connection. Disposal waits for the write in progress with
/// <c>SemaphoreSlim.WaitAsync(TimeSpan)</c> of 1 s, then gives up. The harness never holds one flush for 30 s of real
/// time, so the timeout never fires in a case.
/// </summary>
public sealed class WallClockWriteTimeoutWriter(WriterContext context)
    : InlineZooWriter(context, "wall-clock-write-timeout")
{
    /// <summary>How long a flush may stay pending before the writer takes its connection for dead.</summary>
    public static TimeSpan WriteTimeout { get; } = TimeSpan.FromSeconds(30);

    /// <summary>How long disposal waits for the write in progress, and again after cancelling its flush.</summary>
    public static TimeSpan DisposeWait { get; } = TimeSpan.FromSeconds(1);

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        var output = Context.Output;
        WriteCommand(output, command, Context.FrameMax);
        using var deadline = new CancellationTokenSource(WriteTimeout);
        await using var cancelsFlush = deadline.Token.Register(
            static o => ((System.IO.Pipelines.PipeWriter)o!).CancelPendingFlush(),
            output
        );
        var result = await output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        if (result.IsCanceled && deadline.IsCancellationRequested)
            throw new TimeoutException($"The flush did not complete within {WriteTimeout.TotalSeconds:0} s.");
        CommandFraming.ThrowIfNotDelivered(result);
    }

    /// <inheritdoc />
    public override ValueTask DisposeAsync() => DisposeOnOwnTimerAsync(DisposeWait);
}
