using System.Threading.Channels;
using Microsoft.Extensions.Logging;

namespace AmqpConformance.Cli;

/// <summary>
/// The <c>broker</c> and <c>proxy</c> commands' log sink: every entry is formatted on the logging thread (text or one
/// JSON object per line, <see cref="LogLineFormatter"/>) and posted to a bounded channel that never makes the poster
/// wait (<see cref="BoundedChannelFullMode.DropOldest"/>: when the output falls behind, the oldest queued lines go and
/// the newest stay); one background thread of its own writes them to the command's output. A connection that logs
/// therefore never waits on the console, however slow or stopped its reader is; the lines lost are counted and reported
/// on <see cref="CompleteAsync"/>.
/// </summary>
/// <remarks>Not Microsoft.Extensions.Logging.Console: its queue blocks the logging thread once full, which is the very
/// stall this sink exists to avoid. The writer is a dedicated background thread, not a pool thread: a write that never
/// returns (a pipe nobody reads) holds that thread only, and does not keep the process alive.</remarks>
internal sealed class BoundedConsoleLoggerProvider : ILoggerProvider
{
    /// <summary>How many lines may wait for the output by default.</summary>
    public const int DefaultCapacity = 1024;

    private readonly Channel<string> _lines;
    private readonly TextWriter _output;
    private readonly LogLineFormatter _formatter;
    private readonly TaskCompletionSource _written = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _dropped;
    private int _started;

    /// <summary>A sink writing to <paramref name="output"/> in <paramref name="format"/>, holding at most
    /// <paramref name="capacity"/> lines. Nothing is written until <see cref="Start"/>.</summary>
    public BoundedConsoleLoggerProvider(
        TextWriter output,
        LogFormat format,
        int capacity = DefaultCapacity,
        TimeProvider? time = null
    )
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        _output = output;
        _formatter = new LogLineFormatter(format, time ?? TimeProvider.System);
        _lines = Channel.CreateBounded<string>(
            new BoundedChannelOptions(capacity)
            {
                FullMode = BoundedChannelFullMode.DropOldest,
                SingleReader = true,
                SingleWriter = false,
            },
            _ => Interlocked.Increment(ref _dropped)
        );
    }

    /// <summary>Lines dropped so far because the output did not keep up (or failed).</summary>
    public long DroppedLines => Interlocked.Read(ref _dropped);

    /// <summary>A logger for <paramref name="categoryName"/>. It logs every level but <see cref="LogLevel.None"/>: the
    /// <see cref="ILoggerFactory"/> around the sink filters by level.</summary>
    public ILogger CreateLogger(string categoryName) => new BoundedLogger(this, categoryName);

    /// <summary>Starts the writer thread; lines posted before are written first, in order. Idempotent.</summary>
    public void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
            return;
        new Thread(WriteLoop) { IsBackground = true, Name = "amqp-conformance log writer" }.Start();
    }

    /// <summary>Stops taking lines, lets the writer drain what is queued for at most <paramref name="drainTimeout"/>,
    /// and returns how many lines never reached the output: those dropped, plus those still queued when the wait ended.
    /// When the writer drained in time and lines were dropped, its last line says how many.</summary>
    public async Task<long> CompleteAsync(TimeSpan drainTimeout)
    {
        Start();
        _lines.Writer.TryComplete();
        try
        {
            await _written.Task.WaitAsync(drainTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            // The output is stalled (its reader stopped reading): the writer thread stays blocked in it and the rest is
            // lost.
            return DroppedLines + _lines.Reader.Count;
        }
        return DroppedLines;
    }

    /// <summary>Stops taking lines without waiting for the output.</summary>
    public void Dispose() => _lines.Writer.TryComplete();

    /// <summary>Writes <paramref name="line"/> to <paramref name="writer"/> unless that takes longer than
    /// <paramref name="timeout"/> (a stalled pipe); false then, and the write is left blocked on a pool
    /// thread.</summary>
    public static bool TryWriteLineWithin(TextWriter writer, string line, TimeSpan timeout)
    {
        Task write = Task.Run(() =>
        {
            writer.WriteLine(line);
            writer.Flush();
        });
        try
        {
            return write.Wait(timeout);
        }
        catch (AggregateException)
        {
            return false; // the writer failed (a closed pipe): the line is lost either way
        }
    }

    /// <summary>Queues a line; never waits: a full channel drops its oldest line, and a line after completion is
    /// counted as dropped.</summary>
    private void Post(string line)
    {
        if (!_lines.Writer.TryWrite(line))
            Interlocked.Increment(ref _dropped);
    }

    private void WriteLoop()
    {
        ChannelReader<string> reader = _lines.Reader;
        try
        {
            while (reader.WaitToReadAsync().AsTask().GetAwaiter().GetResult())
            {
                while (reader.TryRead(out string? line))
                    _output.WriteLine(line);
                _output.Flush();
            }
            long dropped = DroppedLines;
            if (dropped > 0)
            {
                _output.WriteLine(
                    _formatter.Format(
                        LogLevel.Warning,
                        CliLog.Category,
                        new EventId(90, "LinesDropped"),
                        $"{dropped} log line(s) dropped: the output did not keep up",
                        [new("DroppedLines", dropped)],
                        null
                    )
                );
                _output.Flush();
            }
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException or NotSupportedException)
        {
            // The output is gone (a closed pipe): count what is left as dropped and stop writing.
            while (reader.TryRead(out string? _))
                Interlocked.Increment(ref _dropped);
        }
        _written.TrySetResult();
    }

    private sealed class BoundedLogger(BoundedConsoleLoggerProvider sink, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel != LogLevel.None;

        public void Log<TState>(
            LogLevel logLevel,
            EventId eventId,
            TState state,
            Exception? exception,
            Func<TState, Exception?, string> formatter
        )
        {
            if (!IsEnabled(logLevel))
                return;
            ArgumentNullException.ThrowIfNull(formatter);
            sink.Post(
                sink._formatter.Format(
                    logLevel,
                    category,
                    eventId,
                    formatter(state, exception),
                    state as IReadOnlyList<KeyValuePair<string, object?>>,
                    exception
                )
            );
        }
    }
}
