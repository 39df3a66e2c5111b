using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.AfterFault;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer with a write timeout, as a client has a socket write timeout
/// (RabbitMQ.Client's default is 30 s): it stamps the time each flush starts, and a watchdog timer (on
/// <see cref="WriterContext.TimeProvider"/>, a quarter of the timeout apart) gives up on a flush pending longer than
/// the timeout with <see cref="PipeWriter.CancelPendingFlush"/>, which stops the writer. The stamp is cleared only
/// after a flush that had to be awaited; a flush that completed synchronously (the common case on a socket that keeps
/// up) leaves its stamp behind. Once the connection then sits idle for the timeout, the watchdog takes the stale stamp
/// for a stuck flush and cancels: the cancel meets no flush, so the next call's flush returns IsCanceled at once and a
/// healthy connection dies under its next publish. Busy connections, and every case shorter than the timeout, never see
/// it.
/// </summary>
public sealed class StaleWriteWatchdogWriter : InlineZooWriter
{
    /// <summary>The write timeout the zoo uses: RabbitMQ.Client's default socket write timeout.</summary>
    public static readonly TimeSpan DefaultWriteTimeout = TimeSpan.FromSeconds(30);

    private readonly TimeSpan _writeTimeout;
    private readonly ITimer _watchdog;
    private long _flushStarted;

    /// <summary>A writer with the default write timeout.</summary>
    public StaleWriteWatchdogWriter(WriterContext context)
        : this(context, DefaultWriteTimeout) { }

    /// <summary>A writer with <paramref name="writeTimeout"/>.</summary>
    public StaleWriteWatchdogWriter(WriterContext context, TimeSpan writeTimeout)
        : base(context, "stale-write-watchdog")
    {
        ArgumentNullException.ThrowIfNull(context);
        _writeTimeout = writeTimeout;
        var period = writeTimeout / 4;
        _watchdog = context.TimeProvider.CreateTimer(
            static s => ((StaleWriteWatchdogWriter)s!).Check(),
            this,
            period,
            period
        );
    }

    /// <inheritdoc />
    protected override async ValueTask WriteAndFlushAsync(OutgoingCommand command)
    {
        WriteCommand(Context.Output, command, Context.FrameMax);
        Volatile.Write(ref _flushStarted, Context.TimeProvider.GetTimestamp());
        var flush = Context.Output.FlushAsync(CancellationToken.None);
        FlushResult result;
        // BUG: the synchronous fast path does not clear the stamp; only an awaited flush does.
        if (flush.IsCompletedSuccessfully)
            result = flush.Result;
        else
        {
            result = await flush.ConfigureAwait(false);
            Volatile.Write(ref _flushStarted, 0);
        }
        CommandFraming.ThrowIfNotDelivered(result);
    }

    private void Check()
    {
        long started = Volatile.Read(ref _flushStarted);
        if (started == 0 || Context.TimeProvider.GetElapsedTime(started) < _writeTimeout)
            return;
        // A flush pending for the whole write timeout: the peer stopped reading. Give up on it (the call's flush
        // returns IsCanceled and the writer stops).
        Volatile.Write(ref _flushStarted, 0);
        Context.Output.CancelPendingFlush();
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        await _watchdog.DisposeAsync().ConfigureAwait(false);
        await base.DisposeAsync().ConfigureAwait(false);
    }
}
