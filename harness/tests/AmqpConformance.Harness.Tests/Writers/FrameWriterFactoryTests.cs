using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Harness.Tests.Writers;

public sealed class FrameWriterFactoryTests
{
    private sealed class UndeclaredFactory : FrameWriterFactory
    {
        public override string Name => "Undeclared";

        public override IFrameWriter CreateWriter(WriterContext context) => new InlineSemaphoreWriter(context);
    }

    [Fact]
    public void A_factory_that_declares_nothing_is_judged_as_before()
    {
        Assert.Equal(WriterCompletion.Unspecified, new UndeclaredFactory().Completion);
        Assert.Equal(
            WriterCompletion.Unspecified,
            FrameWriterFactory.Create("Mine", c => new InlineSemaphoreWriter(c)).Completion
        );
    }

    [Fact]
    public void Create_carries_the_declaration_and_refuses_an_undefined_one()
    {
        var factory = FrameWriterFactory.Create("Mine", c => new InlineSemaphoreWriter(c), WriterCompletion.AfterFlush);
        Assert.Equal(WriterCompletion.AfterFlush, factory.Completion);
        Assert.Equal("Mine", factory.Name);
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            FrameWriterFactory.Create("Mine", c => new InlineSemaphoreWriter(c), (WriterCompletion)7)
        );
    }

    [Fact]
    public void The_reference_factories_declare_their_completion()
    {
        Assert.Equal(WriterCompletion.OnAccept, WriterModes.Background.Completion);
        Assert.Equal(WriterCompletion.AfterFlush, WriterModes.Inline.Completion);
        Assert.Equal(WriterCompletion.AfterFlush, WriterModes.Coalescing.Completion);
    }
}
