using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

/// <summary>The diagnosis after judging: a violation that follows a failed or cancelled call on the same channel names
/// that call (a hint in <see cref="Violation.Cause"/>); nothing is named where no such call is.</summary>
public sealed class DiagnosesTests
{
    private static Violation Of(Judgement judgement, string rule, int call) =>
        Assert.Single(judgement.Violations, v => v.Rule == rule && v.Calls.Contains(call));

    [Fact]
    public void A_tag_mismatch_after_a_cancelled_call_whose_frames_went_out_names_it_and_the_offset()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Publish(1, 1, [2]); // call 1 was cancelled during its flush, yet its frames went out
        b.Publish(1, 2, [3]);
        b.Publish(1, 3, [4]);
        b.Replace(b.Call(0, [1], 0, 1) with { PublishSequenceNumber = 1 });
        b.Replace(b.Call(1, [2], 2, 3, CallOutcome.Cancelled, index: 1) with { PublishSequenceNumber = 2 });
        // The client rolled its sequence number back: every later publish is one behind the broker's tag.
        b.Replace(b.Call(2, [3], 4, 5, index: 2) with { PublishSequenceNumber = 2 });
        b.Replace(b.Call(3, [4], 6, 7, index: 3) with { PublishSequenceNumber = 3 });
        var judgement = Judgement.Of(b.Evidence(e => e with { ConfirmsEnabled = true }));

        foreach (int id in new[] { 2, 3 })
        {
            var v = Of(judgement, "confirm-tag-mismatch", id);
            Assert.NotNull(v.Cause);
            Assert.Contains($"Call {id}'s publish sequence number is one behind the broker's delivery tag", v.Cause);
            Assert.Contains("after call 1 (same channel) was cancelled", v.Cause);
            Assert.Contains("its frames still went out", v.Cause);
            Assert.Contains("Likely cause: " + v.Cause, v.ToString(), StringComparison.Ordinal);
        }
        // The combined verdict a property reports carries the cause too.
        Assert.Contains(judgement.Combined(InvariantNames.Order).Violations, v =>
            v.Rule == "confirm-tag-mismatch" && v.Cause is not null
        );
        // The cancelled call itself has nothing earlier to blame.
        Assert.Null(Of(judgement, "ghost-after-cancel", 1).Cause);
    }

    [Fact]
    public void A_tag_mismatch_with_no_earlier_call_whose_frames_went_out_names_no_cause()
    {
        var b = new WireLogBuilder();
        // Channel 1: the explained mismatch, so that the diagnosis is known to run.
        b.Publish(1, 0, [1]);
        b.Publish(1, 1, [2]);
        b.Replace(b.Call(0, [1], 0, 1, CallOutcome.Cancelled) with { PublishSequenceNumber = 1 });
        b.Replace(b.Call(1, [2], 2, 3, index: 1) with { PublishSequenceNumber = 1 });
        // Channel 2: a cancelled call that wrote nothing, then a mismatch it cannot have shifted.
        b.Replace(
            b.Call(2, [3], 0, 1, CallOutcome.Cancelled, publisher: 1, channel: 2) with
            {
                PublishSequenceNumber = 1,
            }
        );
        b.Publish(2, 3, [4]);
        b.Publish(2, 4, [5]);
        b.Replace(b.Call(3, [4], 2, 3, publisher: 1, index: 1, channel: 2) with { PublishSequenceNumber = 1 });
        b.Replace(b.Call(4, [5], 4, 5, publisher: 1, index: 2, channel: 2) with { PublishSequenceNumber = 3 });
        var judgement = Judgement.Of(b.Evidence(e => e with { ConfirmsEnabled = true }));

        Assert.Contains("after call 0 (same channel)", Of(judgement, "confirm-tag-mismatch", 1).Cause);
        var unexplained = Of(judgement, "confirm-tag-mismatch", 4);
        Assert.Null(unexplained.Cause);
        Assert.DoesNotContain("Likely cause", unexplained.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_hung_call_after_a_cancelled_call_on_its_channel_names_it_but_not_on_another_channel()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1, CallOutcome.Cancelled);
        b.Call(1, [2], 2, null, CallOutcome.Pending, index: 1);
        b.Call(2, [3], 3, null, CallOutcome.Pending, publisher: 1, channel: 2);
        var judgement = Judgement.Of(b.Evidence());

        var named = Of(judgement, "call-hung", 1);
        Assert.Equal(
            "It follows call 0 (same channel), which was cancelled (OperationCanceledException: cancelled) and whose frames still went out.",
            named.Cause
        );
        Assert.Null(Of(judgement, "call-hung", 2).Cause);
    }

    [Fact]
    public void A_hung_call_after_a_failed_call_that_wrote_nothing_names_it_as_such()
    {
        var b = new WireLogBuilder();
        b.Call(0, [1], 0, 1, CallOutcome.Failed);
        b.Call(1, [2], 2, null, CallOutcome.Pending, index: 1);
        var judgement = Judgement.Of(b.Evidence());

        Assert.Equal(
            "It follows call 0 (same channel), which failed (IOException: reset) (none of its frames on the wire).",
            Of(judgement, "call-hung", 1).Cause
        );
    }

    /// <summary>A publish of <paramref name="body"/> for call <paramref name="callId"/> whose last body frame does not
    /// end with 0xCE, as when a cancelled write's bytes are sent again inside it.</summary>
    private static long TornPublish(WireLogBuilder b, ushort channel, int callId, byte[] body)
    {
        b.Method(channel, callId);
        b.Header(channel, body.Length);
        return b.Add(Protocol.FrameType.Body, channel, body, frameEndValid: false);
    }

    [Fact]
    public void A_torn_frame_names_the_nearest_cancelled_call_before_it_whose_frames_went_out_on_any_channel()
    {
        var b = new WireLogBuilder();
        byte[] first = WireLogBuilder.Bytes(10, 1);
        byte[] second = WireLogBuilder.Bytes(10, 2);
        byte[] third = WireLogBuilder.Bytes(10, 3);
        b.Publish(1, 0, first); // frames 0-2: cancelled early, its frames went out
        b.Publish(2, 1, second); // frames 3-5: the write cancelled part-way, on another channel
        long torn = TornPublish(b, 1, 2, third); // frames 6-8: the tear lands in the next call's frame
        b.Call(0, first, 0, 1, CallOutcome.Cancelled);
        b.Call(1, second, 2, 3, CallOutcome.Cancelled, publisher: 1, channel: 2);
        b.Call(2, third, 4, 5, index: 1);
        var judgement = Judgement.Of(b.Evidence());

        var v = Assert.Single(judgement.Violations, x => x.Rule == "bad-frame-end");
        Assert.Equal(
            $"Frame {torn} follows call 1 (channel 2), which was cancelled (OperationCanceledException: cancelled) and whose "
                + "frames, from frame 3 on, still went out: a write cancelled or failed part-way and then sent again in full, "
                + "or cut short, tears the frames it carries (docs/invariants.md, \"Torn frames\").",
            v.Cause
        );
        Assert.EndsWith("Likely cause: " + v.Cause, v.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_torn_frame_names_no_call_that_wrote_nothing_or_wrote_after_it()
    {
        var b = new WireLogBuilder();
        byte[] torn = WireLogBuilder.Bytes(10, 1);
        byte[] later = WireLogBuilder.Bytes(10, 2);
        TornPublish(b, 1, 0, torn); // frames 0-2, the tear in call 0's own frame; call 0 completed
        b.Publish(1, 2, later); // frames 3-5: a cancelled call whose frames came after the tear
        b.Call(0, torn, 0, 1);
        b.Call(1, WireLogBuilder.Bytes(10, 3), 0, 1, CallOutcome.Failed, publisher: 1, channel: 2); // wrote nothing
        b.Call(2, later, 2, 3, CallOutcome.Cancelled, index: 1);
        var judgement = Judgement.Of(b.Evidence());

        var v = Assert.Single(judgement.Violations, x => x.Rule == "bad-frame-end");
        Assert.Null(v.Cause);
        Assert.DoesNotContain("Likely cause", v.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_torn_frame_in_the_cancelled_calls_own_frames_names_that_call()
    {
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(10, 1);
        long torn = TornPublish(b, 1, 0, body);
        b.Call(0, body, 0, 1, CallOutcome.Failed);
        var v = Assert.Single(Judgement.Of(b.Evidence()).Violations, x => x.Rule == "bad-frame-end");
        Assert.StartsWith(
            $"Frame {torn} follows call 0 (channel 1), which failed (IOException: reset) and whose frames, from frame 0 on",
            v.Cause
        );
    }

    /// <summary>An exception thrown from a method named as a pipe's flush is: its stack trace names "Flush".</summary>
    private static OperationCanceledException CancelledInFlush()
    {
        try
        {
            FlushAsyncInternal();
        }
        catch (OperationCanceledException ex)
        {
            return ex;
        }
        throw new InvalidOperationException("unreachable");

        static void FlushAsyncInternal() => throw new OperationCanceledException("The operation was canceled.");
    }

    [Fact]
    public void A_ghost_whose_cancellation_was_thrown_in_a_flush_names_the_flush()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Publish(2, 1, [2]);
        b.Replace(b.Call(0, [1], 0, 1, CallOutcome.Cancelled) with { Exception = CancelledInFlush() });
        b.Call(1, [2], 0, 1, CallOutcome.Cancelled, publisher: 1, channel: 2); // thrown elsewhere (no stack)
        var judgement = Judgement.Of(b.Evidence());

        Assert.Equal(
            "Call 0 was cancelled during its flush (OperationCanceledException: cancelled): its exception was thrown in a "
                + "flush, after its frames had been written to the transport's buffer, and a flush that gives up does not "
                + "take them back; the next flush sends them.",
            Of(judgement, "ghost-after-cancel", 0).Cause
        );
        Assert.Null(Of(judgement, "ghost-after-cancel", 1).Cause);
    }
}
