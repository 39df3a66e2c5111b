namespace AmqpConformance.Harness.Writers;

/// <summary>
/// Makes a frame writer for one connection. This is the one thing a client repository supplies to run
/// the conformance suites on its own writer ("custom" mode): subclass it, or use <see cref="Create"/>.
/// </summary>
/// <remarks>For <c>amqp-conformance run --writer assembly:type</c>, a subclass needs a public parameterless constructor.</remarks>
public abstract class FrameWriterFactory
{
    /// <summary>A short name for reports and trait values, such as "Background" or "Inline".</summary>
    public abstract string Name { get; }

    /// <summary>Creates a writer bound to <paramref name="context"/>. Each call gets a fresh writer.</summary>
    public abstract IFrameWriter CreateWriter(WriterContext context);

    /// <summary>Wraps a delegate as a factory.</summary>
    public static FrameWriterFactory Create(string name, Func<WriterContext, IFrameWriter> create) =>
        new DelegateFactory(name, create);

    /// <inheritdoc />
    public override string ToString() => Name;

    private sealed class DelegateFactory(string name, Func<WriterContext, IFrameWriter> create) : FrameWriterFactory
    {
        public override string Name { get; } = name ?? throw new ArgumentNullException(nameof(name));
        public override IFrameWriter CreateWriter(WriterContext context) => create(context);
    }
}
