using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;

namespace AmqpConformance.Protocol.Tests.Recording;

public sealed class JsonLinesLiveRecorderTests
{
    [Fact]
    public async Task Frames_appended_before_and_after_attach_are_written_once_in_order_with_findings_at_completion()
    {
        var sample = new SampleLogs(connectionId: 1, captureBodies: true);
        sample.Method(FrameDirection.Sent, 0, new ConnectionStart());
        using var stream = new MemoryStream();
        await using (var recorder = new JsonLinesLiveRecorder(stream, leaveOpen: true))
        {
            recorder.Attach(sample.Log);
            // Appends race with the attach snapshot on another thread.
            await Task.Run(() =>
            {
                for (int i = 0; i < 200; i++)
                    sample.Publish(1, SampleLogs.Pattern(i * 37, i), 4096);
            });
            sample.Log.AddFinding(new ProtocolFinding(3, 505, "rule", "message", false));
            recorder.Complete(sample.Log, "client closed");
            sample.Heartbeat(FrameDirection.Received); // after completion: not recorded
        }
        stream.Position = 0;

        FrameLogSnapshot back = Assert.Single(JsonLinesReader.Read(stream));

        Assert.True(back.Ended);
        Assert.Equal("client closed", back.EndReason);
        FrameRecordAssert.Equal(sample.Log.Snapshot().Take(sample.Log.Count - 1).ToList(), back.Frames);
        Assert.Single(back.Findings);
    }

    [Fact]
    public async Task Frames_reach_the_file_while_the_connection_is_still_open()
    {
        string path = Path.Combine(Path.GetTempPath(), $"live-{Guid.NewGuid():N}.jsonl");
        try
        {
            var sample = new SampleLogs(connectionId: 4);
            await using var recorder = JsonLinesLiveRecorder.Create(path);
            recorder.Attach(sample.Log);
            sample.Heartbeat(FrameDirection.Received);
            sample.Heartbeat(FrameDirection.Sent);

            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            IReadOnlyList<FrameLogSnapshot> seen;
            while ((seen = JsonLinesReader.ReadFile(path)).Count == 0 || seen[0].Frames.Count < 2)
                await Task.Delay(20, timeout.Token);

            Assert.False(seen[0].Ended);
            Assert.Equal([FrameType.Heartbeat, FrameType.Heartbeat], seen[0].Frames.Select(f => f.Type));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task Dispose_ends_logs_still_attached_and_interleaved_connections_stay_apart()
    {
        var first = new SampleLogs(connectionId: 1);
        var second = new SampleLogs(connectionId: 2);
        using var stream = new MemoryStream();
        await using (var recorder = new JsonLinesLiveRecorder(stream, leaveOpen: true))
        {
            recorder.Attach(first.Log);
            recorder.Attach(second.Log);
            for (int i = 0; i < 10; i++)
            {
                first.Heartbeat(FrameDirection.Received);
                second.Publish(1, [1, 2, 3], 4096);
            }
        }
        stream.Position = 0;

        IReadOnlyList<FrameLogSnapshot> back = JsonLinesReader.Read(stream);

        Assert.Equal([1L, 2L], back.Select(s => s.ConnectionId));
        Assert.All(back, s => Assert.Equal(JsonLinesLiveRecorder.StoppedReason, s.EndReason));
        Assert.Equal(10, back[0].Frames.Count);
        Assert.Equal(30, back[1].Frames.Count);
    }

    [Fact]
    public async Task A_log_that_holds_only_its_newest_frames_is_recorded_whole_with_a_matching_end_line()
    {
        // The standalone broker streams long connections with MaxRetainedFrames set: the file must still get every
        // frame from the attach on, and its end line must count the lines written, not the frames the log still holds.
        var log = new FrameLog(5, new FrameLogOptions { MaxRetainedFrames = 10 });
        static FrameRecord Heartbeat(long sequence) =>
            new()
            {
                Sequence = sequence,
                Direction = FrameDirection.Received,
                WireOffset = 8 + sequence * 8,
                Timestamp = TimeSpan.Zero,
                Type = FrameType.Heartbeat,
                Channel = 0,
                Size = 0,
            };
        for (int i = 0; i < 35; i++)
            log.Append(Heartbeat); // the log already dropped the oldest before the attach
        long firstHeld = log.DroppedFrames;
        Assert.True(firstHeld > 0);
        using var stream = new MemoryStream();
        await using (var recorder = new JsonLinesLiveRecorder(stream, leaveOpen: true))
        {
            recorder.Attach(log);
            for (int i = 0; i < 100; i++)
                log.Append(Heartbeat);
            recorder.Complete(log, "done");
        }
        stream.Position = 0;

        FrameLogSnapshot back = Assert.Single(JsonLinesReader.Read(stream)); // the reader checks the end line's counts

        Assert.True(back.Ended);
        Assert.Equal(
            Enumerable.Range((int)firstHeld, 135 - (int)firstHeld).Select(i => (long)i),
            back.Frames.Select(f => f.Sequence)
        );
        Assert.True(log.Count < back.Frames.Count);
    }

    [Fact]
    public async Task A_write_error_surfaces_at_dispose_and_stops_the_recording()
    {
        var sample = new SampleLogs(connectionId: 1);
        var recorder = new JsonLinesLiveRecorder(new FailingStream());
        recorder.Attach(sample.Log);
        sample.Heartbeat(FrameDirection.Received);

        var e = await Assert.ThrowsAsync<IOException>(async () => await recorder.DisposeAsync());
        Assert.Equal("disk full", e.Message);
    }

    [Fact]
    public async Task Attaching_after_dispose_is_refused()
    {
        var recorder = new JsonLinesLiveRecorder(new MemoryStream());
        await recorder.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => recorder.Attach(new FrameLog(1)));
    }

    [Fact]
    public async Task Attaching_a_connection_id_twice_is_refused()
    {
        await using var recorder = new JsonLinesLiveRecorder(new MemoryStream());
        recorder.Attach(new FrameLog(3));
        Assert.Throws<ArgumentException>(() => recorder.Attach(new FrameLog(3)));
    }

    private sealed class FailingStream : MemoryStream
    {
        public override void Write(ReadOnlySpan<byte> buffer) => throw new IOException("disk full");

        public override void Write(byte[] buffer, int offset, int count) => throw new IOException("disk full");
    }
}
