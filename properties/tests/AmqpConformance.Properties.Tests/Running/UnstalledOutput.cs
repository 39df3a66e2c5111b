using System.IO.Pipelines;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Properties.Tests.Running;

/// <summary>For tests of the harness's output itself: a <see cref="ControlledOutput"/> over a pipe that never pauses,
/// without noise, on a clock that stays at zero, and a way to commit bytes to it.</summary>
internal static class UnstalledOutput
{
    /// <summary>A fresh output (frame_max 4096).</summary>
    public static ControlledOutput New() =>
        new(
            new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false)).Writer,
            () => TimeSpan.Zero,
            4096,
            noiseSeed: null
        );

    /// <summary>Asks <paramref name="output"/> for memory once and commits <paramref name="bytes"/> bytes of it.</summary>
    public static void Commit(PipeWriter output, int bytes)
    {
        output.GetMemory(bytes).Span[..bytes].Fill(0xCE);
        output.Advance(bytes);
    }
}
