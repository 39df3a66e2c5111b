using System.IO.Pipelines;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>The output is the connection's: the harness tells the writer's completion of it from its own.</summary>
public sealed class ControlledOutputCompletionTests
{
    private static ControlledOutput NewOutput() =>
        new(new Pipe().Writer, () => TimeSpan.FromMilliseconds(3), 4096, noiseSeed: null);

    [Fact]
    public async Task A_completion_by_the_writer_is_recorded()
    {
        var output = NewOutput();
        await output.CompleteAsync();
        Assert.Equal(TimeSpan.FromMilliseconds(3), output.CompletedByWriterAt);
    }

    [Fact]
    public async Task The_harness_ending_the_connection_is_not_the_writers_completion()
    {
        var output = NewOutput();
        await output.CompleteByHarnessAsync();
        Assert.Null(output.CompletedByWriterAt);
    }
}
