namespace AmqpConformance.Cli.Tests;

/// <summary><c>selftest --writer NAME</c>: a zoo writer's exact name selects that writer alone; anything else selects
/// every writer whose name contains it.</summary>
public sealed class SelftestWriterFilterTests
{
    [Theory]
    [InlineData("DelayedFlush")]
    [InlineData("delayedflush")]
    [InlineData("Zoo:DelayedFlush")]
    public void An_exact_name_selects_that_writer_and_not_one_whose_name_merely_starts_with_it(string filter)
    {
        Assert.True(SelftestCommand.Selects(filter, "Zoo:DelayedFlush"));
        Assert.False(SelftestCommand.Selects(filter, "Zoo:DelayedFlushLostWakeup"));
    }

    [Fact]
    public void A_part_of_names_selects_every_writer_containing_it()
    {
        Assert.True(SelftestCommand.Selects("DisposeHangs", "Zoo:DisposeHangsOnStall"));
        Assert.True(SelftestCommand.Selects("dispose", "Zoo:DisposeHangsOnStall"));
        Assert.True(SelftestCommand.Selects("dispose", "Zoo:EarlyDisposeReturn"));
        Assert.False(SelftestCommand.Selects("dispose", "Zoo:FlushPerFrame"));
    }
}
