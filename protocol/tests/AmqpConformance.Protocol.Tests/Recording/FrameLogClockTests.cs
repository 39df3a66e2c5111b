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
    public void A_frame_recorded_with_a_given_time_gets_that_time_unless_an_earlier_frame_was_recorded_later()
    {
        var clock = new ManualClock();
        var log = new FrameLog(options: new FrameLogOptions { Clock = clock });
        byte[] heartbeat = [];
        clock.Now += 10;
        TimeSpan readAt = log.Elapsed; // a reader's read: its frames share this time
        clock.Now += 20;
        log.Record(FrameDirection.Received, 8, readAt, (byte)FrameType.Heartbeat, 0, 0, new(heartbeat));
        log.Record(FrameDirection.Sent, 0, (byte)FrameType.Heartbeat, 0, 0, new(heartbeat)); // reads the clock: 30 ms
        log.Record(FrameDirection.Received, 16, readAt, (byte)FrameType.Heartbeat, 0, 0, new(heartbeat));

        Assert.Equal([10.0, 30.0, 30.0], log.Snapshot().Select(f => f.Timestamp.TotalMilliseconds));
    }

    [Fact]
    public void By_default_the_log_reads_the_system_clock()
    {
        Assert.Same(TimeProvider.System, FrameLogOptions.Default.Clock);
    }
}
