using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary><see cref="FrameLogOptions.Clock"/> is the clock a log's <see cref="FrameLog.Elapsed"/> reads.</summary>
public sealed class FrameLogClockTests
{
    private sealed class ManualClock : TimeProvider
    {
        public long Now { get; set; } = 1_000;

        public override long TimestampFrequency => 1_000; // milliseconds

        public override long GetTimestamp() => Now;
    }

    [Fact]
    public void Elapsed_follows_the_clock_the_options_name()
    {
        var clock = new ManualClock();
        var log = new FrameLog(options: new FrameLogOptions { Clock = clock });
        Assert.Equal(TimeSpan.Zero, log.Elapsed);
        clock.Now += 1_500;
        Assert.Equal(TimeSpan.FromMilliseconds(1_500), log.Elapsed);
    }

    [Fact]
    public void By_default_the_log_reads_the_system_clock()
    {
        Assert.Same(TimeProvider.System, FrameLogOptions.Default.Clock);
    }
}
