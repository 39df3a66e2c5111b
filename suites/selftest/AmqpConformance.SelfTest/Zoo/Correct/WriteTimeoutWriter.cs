using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Correct;

/// <summary>
/// CORRECT (unusual): an inline writer with a write timeout of its own, as RabbitMQ.Client has one on its socket: a
/// flush that has not completed 30 s after it started, on <see cref="WriterContext.TimeProvider"/>, is cancelled
/// (CancelPendingFlush) and the writer stops, as on a dead connection. docs/writers.md promises that the harness never
/// keeps one flush stalled for 20 s or more, so a timeout longer than that must never fire in a case. This writer
/// holds the harness to it: a script that stalled one flush twice in a row (40 s) would get it blamed.
/// </summary>
public sealed class WriteTimeoutWriter(WriterContext context) : InlineZooWriter(context, "write-timeout")
{
    /// <summary>How long a flush may stay pending before the writer takes its connection for dead.</summary>
    public static TimeSpan WriteTimeout { get; } = TimeSpan.FromSeconds(30);

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        var output = Context.Output;
        WriteCommand(output, command, Context.FrameMax);
        bool timedOut = false;
        using (
            Context.TimeProvider.CreateTimer(
                _ =>
                {
                    Volatile.Write(ref timedOut, true);
                    output.CancelPendingFlush();
                },
                null,
                WriteTimeout,
                Timeout.InfiniteTimeSpan
            )
        )
        {
            var result = await output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            if (result.IsCanceled && Volatile.Read(ref timedOut))
                throw new TimeoutException($"The flush did not complete within {WriteTimeout.TotalSeconds:0} s.");
            CommandFraming.ThrowIfNotDelivered(result);
        }
    }
}
