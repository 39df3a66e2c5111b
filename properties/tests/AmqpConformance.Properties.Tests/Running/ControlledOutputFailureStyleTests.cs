using System.IO.Pipelines;
using System.Net.Sockets;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>A transport failure reaches the writer from its output's flush as the case's
/// <see cref="TransportFailureStyle"/> says, and the harness notes the fault whatever the style.</summary>
public sealed class ControlledOutputFailureStyleTests
{
    [Theory]
    [InlineData(0, typeof(TransportResetException))]
    [InlineData(1, typeof(SocketException))]
    [InlineData(2, typeof(ObjectDisposedException))]
    public async Task A_failed_flush_throws_the_styles_exception_and_the_fault_is_noted(int styleNumber, Type expected)
    {
        var style = (TransportFailureStyle)styleNumber; // AsThrown, SocketError, Disposed (the enum is internal)
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        await pipe.Reader.CompleteAsync(new TransportResetException("reset by the test"));
        var output = new ControlledOutput(pipe.Writer, () => TimeSpan.FromSeconds(3), 4096, noiseSeed: null, style);
        output.GetMemory(10).Span[..10].Fill(0xCE);
        output.Advance(10);
        var thrown = await Assert.ThrowsAnyAsync<Exception>(async () => await output.FlushAsync());
        Assert.IsType(expected, thrown);
        Assert.Equal(TimeSpan.FromSeconds(3), output.FaultObservedAt);
    }

    [Fact]
    public void Each_style_is_drawn_by_some_seed()
    {
        var drawn = Enumerable.Range(0, 30).Select(TransportFailureStyles.ForSeed).ToHashSet();
        Assert.Equal(Enum.GetValues<TransportFailureStyle>().ToHashSet(), drawn);
    }
}
