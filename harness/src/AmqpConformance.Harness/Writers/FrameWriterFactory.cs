namespace AmqpConformance.Harness.Writers;

/// <summary>
/// Makes a frame writer for one connection. This is the one thing a client repository supplies to run
/// the conformance suites on its own writer ("custom" mode): subclass it, or use <see cref="Create(string, Func{WriterContext, IFrameWriter})"/>.
/// </summary>
/// <remarks>For <c>amqp-conformance run --writer assembly:type</c>, a subclass needs a public parameterless constructor. Declare when
/// your writer completes calls with <see cref="Completion"/> (default <see cref="WriterCompletion.Unspecified"/>): a writer that
/// completes a call only after its flush should say <see cref="WriterCompletion.AfterFlush"/>, so that the harness also catches it
/// reporting success for a command a failed flush did not deliver.</remarks>
public abstract class FrameWriterFactory
{
    /// <summary>A short name for reports and trait values, such as "Background" or "Inline".</summary>
    public abstract string Name { get; }

    /// <summary>Creates a writer bound to <paramref name="context"/>. Each call gets a fresh writer.</summary>
    public abstract IFrameWriter CreateWriter(WriterContext context);

    /// <summary>When the writers this factory makes complete a successful call: <see cref="WriterCompletion.AfterFlush"/> (only
    /// once a flush that carried the whole command returned without throwing, with neither IsCompleted nor IsCanceled),
    /// <see cref="WriterCompletion.OnAccept"/> (as soon as the command is accepted, before it is flushed), or
    /// <see cref="WriterCompletion.Unspecified"/> (the default: not declared).</summary>
    /// <remarks>Override it (or pass it to <see cref="Create(string, Func{WriterContext, IFrameWriter}, WriterCompletion)"/>) to
    /// declare what your writer promises. The harness holds the writer to <see cref="WriterCompletion.AfterFlush"/>: with it, a call
    /// that reported success although its command was not delivered by a successful flush is a <c>faults</c> violation
    /// (<c>succeeded-but-not-delivered</c>) even when a transport fault happened. With <see cref="WriterCompletion.OnAccept"/> or
    /// <see cref="WriterCompletion.Unspecified"/> a transport fault excuses such a loss. Declaring
    /// <see cref="WriterCompletion.AfterFlush"/> for a writer that completes on accept makes it fail.</remarks>
    public virtual WriterCompletion Completion => WriterCompletion.Unspecified;

    /// <summary>Wraps a delegate as a factory whose <see cref="Completion"/> is <see cref="WriterCompletion.Unspecified"/>.</summary>
    public static FrameWriterFactory Create(string name, Func<WriterContext, IFrameWriter> create) =>
        new DelegateFactory(name, create, WriterCompletion.Unspecified);

    /// <summary>Wraps a delegate as a factory whose writers complete calls as <paramref name="completion"/> declares
    /// (see <see cref="Completion"/>).</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="completion"/> is not a defined value.</exception>
    public static FrameWriterFactory Create(string name, Func<WriterContext, IFrameWriter> create, WriterCompletion completion) =>
        Enum.IsDefined(completion)
            ? new DelegateFactory(name, create, completion)
            : throw new ArgumentOutOfRangeException(nameof(completion), completion, "Not a WriterCompletion value.");

    /// <inheritdoc />
    public override string ToString() => Name;

    private sealed class DelegateFactory(string name, Func<WriterContext, IFrameWriter> create, WriterCompletion completion) : FrameWriterFactory
    {
        public override string Name { get; } = name ?? throw new ArgumentNullException(nameof(name));
        public override WriterCompletion Completion { get; } = completion;
        public override IFrameWriter CreateWriter(WriterContext context) => create(context);
    }
}
