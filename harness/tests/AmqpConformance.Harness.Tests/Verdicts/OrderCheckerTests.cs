using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class OrderCheckerTests
{
    private readonly OrderChecker _checker = new();

    [Fact]
    public void Sequential_calls_in_wire_order_hold_and_overlapping_calls_may_reorder()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Publish(1, 2, [3]);
        b.Publish(1, 1, [2]);
        b.Call(0, [1], 0, 1);
        b.Call(1, [2], 2, 5, publisher: 1);
        b.Call(2, [3], 3, 4, publisher: 2); // overlaps call 1: either order is fine
        Assert.True(_checker.Run(b.Evidence()).Holds);
    }

    [Fact]
    public void A_call_that_completed_before_another_started_must_be_on_the_wire_first()
    {
        var b = new WireLogBuilder();
        long late = b.Publish(1, 1, [2])[0];
        long early = b.Publish(1, 0, [1])[0];
        b.Call(0, [1], 0, 1, publisher: 0);
        b.Call(1, [2], 2, 3, publisher: 1);
        var v = _checker.Run(b.Evidence()).Single("call-order");
        Assert.Equal([0, 1], v.Calls);
        Assert.Equal([late, early], v.Frames);
    }

    [Fact]
    public void A_publishers_own_order_is_checked()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 1, [2]);
        b.Publish(1, 0, [1]);
        // Timestamps overlap (no happens-before), but the same publisher issued #0 before #1.
        b.Call(0, [1], 0, 5, publisher: 3, index: 0);
        b.Call(1, [2], 1, 6, publisher: 3, index: 1);
        Assert.Equal([0, 1], _checker.Run(b.Evidence()).Single("publisher-order").Calls);
    }

    [Fact]
    public void Lost_and_duplicated_publishes_are_caught()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        b.Call(1, [2], 2, 3, index: 1);
        var verdict = _checker.Run(b.Evidence());
        Assert.Equal([0], verdict.Single("duplicate-publish").Calls);
        Assert.Equal([1], verdict.Single("lost-publish").Calls);
        Assert.DoesNotContain(
            _checker
                .Run(b.Evidence(e => e with { Fault = new TransportFaultRecord(TimeSpan.Zero, "reset", null, 0) }))
                .Violations,
            v => v.Rule == "lost-publish"
        );
        var hung = new LifecycleRecord(TimeSpan.FromMilliseconds(5), null, TimeSpan.FromSeconds(1), [], 0, false);
        Assert.DoesNotContain(_checker.Run(b.Evidence(e => e with { Lifecycle = hung })).Violations, v =>
            v.Rule == "lost-publish"
        );
        var gaveUp = new LifecycleRecord(
            TimeSpan.FromMilliseconds(5),
            TimeSpan.FromMilliseconds(9),
            TimeSpan.FromSeconds(1),
            [],
            0,
            OutputStalledThroughDispose: true
        );
        Assert.DoesNotContain(_checker.Run(b.Evidence(e => e with { Lifecycle = gaveUp })).Violations, v =>
            v.Rule == "lost-publish"
        );
    }

    [Fact]
    public void A_writer_on_its_own_timer_may_drop_what_it_accepted_when_it_gives_up_on_a_held_output_or_a_stopped_process()
    {
        // As Zoo:MonitorWaitThread on a loaded machine: its disposal's Thread.Join(1 s) runs out while the script holds
        // the output between pulses.
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Call(0, [1], 0, 1);
        b.Call(1, [2], 2, 3, index: 1);
        LifecycleRecord Disposal(bool held, int realMs, int? heldForMs = null) =>
            new(
                TimeSpan.FromMilliseconds(5),
                TimeSpan.FromMilliseconds(6),
                TimeSpan.FromSeconds(1),
                [],
                0,
                OutputStalledThroughDispose: false
            )
            {
                OutputHeldIntoDispose = held ? TimeSpan.FromMilliseconds(heldForMs ?? realMs) : null,
                DisposeRealTime = TimeSpan.FromMilliseconds(realMs),
            };
        bool Blamed(LifecycleRecord life) =>
            _checker.Run(b.Evidence(e => e with { Lifecycle = life })).Violations.Any(v => v.Rule == "lost-publish");

        Assert.False(Blamed(Disposal(held: true, realMs: 1000)), "gave up after 1 s on a held output");
        Assert.True(
            Blamed(Disposal(held: true, realMs: 10)),
            "dropped its queue 10 ms into disposal: it did not wait for the output"
        );
        Assert.True(Blamed(Disposal(held: false, realMs: 1000)), "the output was not held while disposal ran");
        // As Zoo:MonitorWaitThread once in CI: its join ran out while the output was held, and disposal returned just
        // after the script's next step released it.
        Assert.False(
            Blamed(Disposal(held: true, realMs: 1100, heldForMs: 1050)),
            "gave up on a held output, returned after its release"
        );
        Assert.True(
            Blamed(Disposal(held: true, realMs: 1000, heldForMs: 50)),
            "the output was released 50 ms into disposal and taking writes for 950 ms more"
        );
        Assert.True(Blamed(Disposal(held: true, realMs: 0) with { DisposeRealTime = null }), "unmeasured: not excused");
        // A stopped process: a 1 s join expires the moment it runs again, before the writer's thread has.
        Assert.False(
            Blamed(Disposal(held: false, realMs: 6000) with { LagDuringDispose = TimeSpan.FromSeconds(5.5) }),
            "kept from running for most of it"
        );
        Assert.True(
            Blamed(Disposal(held: false, realMs: 1000) with { LagDuringDispose = TimeSpan.FromMilliseconds(200) }),
            "ran for 800 ms of a free output and dropped"
        );
        Assert.True(
            Blamed(Disposal(held: false, realMs: 50) with { LagDuringDispose = TimeSpan.FromMilliseconds(50) }),
            "under the floor"
        );
    }

    [Fact]
    public void Confirm_sequence_numbers_must_match_publish_position_per_channel()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Publish(2, 1, [2]);
        b.Publish(1, 2, [3]);
        b.Replace(b.Call(0, [1], 0, 1) with { PublishSequenceNumber = 1 });
        b.Replace(b.Call(1, [2], 2, 3, channel: 2) with { PublishSequenceNumber = 1 });
        b.Replace(b.Call(2, [3], 4, 5) with { PublishSequenceNumber = 3 });
        var verdict = _checker.Run(b.Evidence(e => e with { ConfirmsEnabled = true }));
        Assert.Equal([2], verdict.Single("confirm-tag-mismatch").Calls);
        Assert.True(_checker.Run(b.Evidence()).Holds); // confirms off: sequence numbers are not judged
    }

    [Fact]
    public void A_call_without_content_takes_no_confirm_sequence_number_but_keeps_its_place_in_call_order()
    {
        var b = new WireLogBuilder();
        b.Publish(1, 0, [1]);
        b.Cancel(1, 1);
        b.Publish(1, 2, [3]);
        b.Replace(b.Call(0, [1], 0, 1) with { PublishSequenceNumber = 1 });
        b.Replace(b.Call(1, [], 2, 3, index: 1) with { HasContent = false });
        b.Replace(b.Call(2, [3], 4, 5, index: 2) with { PublishSequenceNumber = 2 });
        Assert.True(_checker.Run(b.Evidence(e => e with { ConfirmsEnabled = true })).Holds);

        // A publish that completed before the call without content started, yet is on the wire after it.
        var overtaken = new WireLogBuilder();
        overtaken.Cancel(2, 1);
        overtaken.Publish(1, 0, [1]);
        overtaken.Call(0, [1], 0, 1);
        overtaken.Replace(overtaken.Call(1, [], 2, 3, publisher: 1, channel: 2) with { HasContent = false });
        Assert.Equal([0, 1], _checker.Run(overtaken.Evidence()).Single("call-order").Calls);
    }

    [Fact]
    public void A_pipelining_publishers_overlapping_calls_may_go_out_in_either_order_but_not_its_sequential_ones()
    {
        var overlapping = new WireLogBuilder();
        overlapping.Publish(1, 1, [2]);
        overlapping.Publish(1, 0, [1]);
        overlapping.Call(0, [1], 0, 5);
        overlapping.Replace(overlapping.Call(1, [2], 1, 6, index: 1) with { Pipelined = true }); // made before call 0 was awaited
        Assert.True(_checker.Run(overlapping.Evidence()).Holds);
        // The same timestamps without pipelining: the publisher awaited call 0 before it made call 1
        // (A_publishers_own_order_is_checked).
        overlapping.Replace(overlapping.Evidence().Calls[1] with { Pipelined = false });
        Assert.Equal([0, 1], _checker.Run(overlapping.Evidence()).Single("publisher-order").Calls);
    }
}
