namespace AmqpConformance.Harness.Writers;

/// <summary>
/// Makes a frame writer for one connection. This is the one thing a client repository supplies to run the conformance
/// suites on its own writer ("custom" mode): subclass it, or use
/// <see cref="Create(string, Func{WriterContext, IFrameWriter})"/>.
/// </summary>
/// <remarks>For <c>amqp-conformance run --writer assembly:type</c>, a subclass needs a public parameterless
/// constructor. Declare when your writer completes calls with <see cref="Completion"/> (default
/// <see cref="WriterCompletion.Unspecified"/>): a writer that completes a call only after its flush should say
/// <see cref="WriterCompletion.AfterFlush"/>, so that the harness also catches it reporting success for a command a
/// failed flush did not deliver.</remarks>
public abstract class FrameWriterFactory
{
    /// <summary>A short name for reports and trait values, such as "Background" or "Inline".</summary>
    public abstract string Name { get; }

    /// <summary>Creates a writer bound to <paramref name="context"/>. Each call gets a fresh writer.</summary>
    public abstract IFrameWriter CreateWriter(WriterContext context);

    /// <summary>When the writers this factory makes complete a successful call:
    /// <see cref="WriterCompletion.AfterFlush"/> (only once a flush that carried the whole command returned without
    /// throwing, with neither IsCompleted nor IsCanceled), <see cref="WriterCompletion.OnAccept"/> (as soon as the
    /// command is accepted, before it is flushed), or <see cref="WriterCompletion.Unspecified"/> (the default: not
    /// declared).</summary>
    /// <remarks>Override it (or pass it to
    /// <see cref="Create(string, Func{WriterContext, IFrameWriter}, WriterCompletion)"/>) to declare what your writer
    /// promises. The harness holds the writer to <see cref="WriterCompletion.AfterFlush"/>: with it, a call that
    /// reported success although its command was not delivered by a successful flush is a <c>faults</c> violation
    /// (<c>succeeded-but-not-delivered</c>) even when a transport fault happened. With
    /// <see cref="WriterCompletion.OnAccept"/> or <see cref="WriterCompletion.Unspecified"/> a transport fault excuses
    /// such a loss. Declaring <see cref="WriterCompletion.AfterFlush"/> for a writer that completes on accept makes it
    /// fail.</remarks>
    public virtual WriterCompletion Completion => WriterCompletion.Unspecified;

    /// <summary>The default <see cref="DisposeTimeout"/>: 30 s, RabbitMQ.Client's socket write timeout.</summary>
    public static readonly TimeSpan DefaultDisposeTimeout = TimeSpan.FromSeconds(30);

    /// <summary>The longest real time the writers this factory makes take to return from DisposeAsync when their output
    /// accepts nothing and they give up on their own timers (a <c>SemaphoreSlim.WaitAsync(TimeSpan)</c>,
    /// <c>CancelAfter</c>, a <c>System.Threading.Timer</c>, a thread's <c>Monitor.Wait</c>) rather than on
    /// <see cref="WriterContext.TimeProvider"/> (default <see cref="DefaultDisposeTimeout"/>, 30 s).</summary>
    /// <remarks>The harness judges a disposal hung (<c>lifecycle/dispose-hung</c>) only once it has outlived both
    /// bounds: twice <see cref="WriterContext.DrainTimeout"/> plus a margin on the case's clock, which the harness
    /// moves forward to the writer's next timer on that clock, and this much real time. A writer that waits on the
    /// case's clock costs no real time; one with its own timers costs their real time, and is never blamed for it while
    /// it gives up within this bound. Declare a shorter bound to make a hung disposal go red sooner; a longer one only
    /// if your writer really waits longer. Once a disposal outlived it, the harness holds that writer (this factory's
    /// writers, for the rest of the process) to the case clock's bound alone: its first hang costs this much real time,
    /// later ones none.</remarks>
    public virtual TimeSpan DisposeTimeout => DefaultDisposeTimeout;

    /// <summary>What identifies the writers this factory makes across factory instances: a suite makes a new factory
    /// for each test, and what the harness learns about a writer (a disposal that outlived
    /// <see cref="DisposeTimeout"/>) holds for all of them. By default the factory's type and <see cref="Name"/>; for
    /// <see cref="Create(string, Func{WriterContext, IFrameWriter})"/>, the name and the method the delegate
    /// runs.</summary>
    internal virtual object Identity => (GetType(), Name);

    /// <summary>Wraps a delegate as a factory whose <see cref="Completion"/> is
    /// <see cref="WriterCompletion.Unspecified"/>.</summary>
    public static FrameWriterFactory Create(string name, Func<WriterContext, IFrameWriter> create) =>
        new DelegateFactory(name, create, WriterCompletion.Unspecified);

    /// <summary>Wraps a delegate as a factory whose writers complete calls as <paramref name="completion"/> declares
    /// (see <see cref="Completion"/>).</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="completion"/> is not a defined value.</exception>
    public static FrameWriterFactory Create(
        string name,
        Func<WriterContext, IFrameWriter> create,
        WriterCompletion completion
    ) =>
        Enum.IsDefined(completion)
            ? new DelegateFactory(name, create, completion)
            : throw new ArgumentOutOfRangeException(nameof(completion), completion, "Not a WriterCompletion value.");

    /// <summary>Wraps a delegate as a factory whose writers complete calls as <paramref name="completion"/> declares
    /// and give up on their own timers within <paramref name="disposeTimeout"/> of real time (see
    /// <see cref="DisposeTimeout"/>).</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="completion"/> is not a defined value, or
    /// <paramref name="disposeTimeout"/> is not positive.</exception>
    public static FrameWriterFactory Create(
        string name,
        Func<WriterContext, IFrameWriter> create,
        WriterCompletion completion,
        TimeSpan disposeTimeout
    )
    {
        if (disposeTimeout <= TimeSpan.Zero || disposeTimeout == Timeout.InfiniteTimeSpan)
            throw new ArgumentOutOfRangeException(
                nameof(disposeTimeout),
                disposeTimeout,
                "A dispose timeout must be positive and finite."
            );
        return Enum.IsDefined(completion)
            ? new DelegateFactory(name, create, completion) { DisposeBound = disposeTimeout }
            : throw new ArgumentOutOfRangeException(nameof(completion), completion, "Not a WriterCompletion value.");
    }

    /// <inheritdoc />
    public override string ToString() => Name;

    private sealed class DelegateFactory(
        string name,
        Func<WriterContext, IFrameWriter> create,
        WriterCompletion completion
    ) : FrameWriterFactory
    {
        private readonly Func<WriterContext, IFrameWriter> _create = create
            ?? throw new ArgumentNullException(nameof(create));

        public override string Name { get; } = name ?? throw new ArgumentNullException(nameof(name));
        public override WriterCompletion Completion { get; } = completion;
        public TimeSpan DisposeBound { get; init; } = DefaultDisposeTimeout;
        public override TimeSpan DisposeTimeout => DisposeBound;
        internal override object Identity => (Name, _create.Method);

        public override IFrameWriter CreateWriter(WriterContext context) => _create(context);
    }
}
