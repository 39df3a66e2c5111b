using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo.AfterFault;
using AmqpConformance.SelfTest.Zoo.Bodies;
using AmqpConformance.SelfTest.Zoo.Cancellation;
using AmqpConformance.SelfTest.Zoo.CommandShape;
using AmqpConformance.SelfTest.Zoo.Correct;
using AmqpConformance.SelfTest.Zoo.Interleaving;
using AmqpConformance.SelfTest.Zoo.Lifecycle;
using AmqpConformance.SelfTest.Zoo.Ordering;
using AmqpConformance.SelfTest.Zoo.Pools;
using AmqpConformance.SelfTest.Zoo.QueueFull;
using AmqpConformance.SelfTest.Zoo.Visibility;
using AmqpConformance.SelfTest.Zoo.WireFormat;

namespace AmqpConformance.SelfTest.Zoo;

/// <summary>The catalogue: every DELIBERATELY BROKEN zoo writer and the correct-but-unusual ones.</summary>
public static partial class ZooWriters
{
    /// <summary>An entry whose factory declares <paramref name="completion"/>: what the writer's base design (inline,
    /// batching or background) does, where the writer really does it; a writer whose bug is completing calls early, or
    /// that completes some calls on accept, declares <see cref="WriterCompletion.OnAccept"/> or nothing.</summary>
    private static ZooEntry E<T>(
        Func<WriterContext, T> create,
        BugClass bugClass,
        string bug,
        string trigger,
        WriterCompletion completion = WriterCompletion.Unspecified
    )
        where T : IFrameWriter
    {
        string name = typeof(T).Name;
        if (name.EndsWith("Writer", StringComparison.Ordinal))
            name = name[..^"Writer".Length];
        return new ZooEntry(
            FrameWriterFactory.Create("Zoo:" + name, c => create(c), completion),
            bugClass,
            bug,
            trigger
        );
    }

    /// <summary>Every zoo writer, broken ones by class, then the correct ones.</summary>
    public static IReadOnlyList<ZooEntry> All { get; } =
    [
        // 1. Lifecycle
        E(
            c => new StrandedWaitersWriter(c),
            BugClass.Lifecycle,
            "DisposeAsync takes the inline writer's lock and never releases it, so callers parked on the lock are never woken.",
            "Callers waiting for the lock (with uncancellable tokens) when DisposeAsync runs.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new EarlyDisposeReturnWriter(c),
            BugClass.Lifecycle,
            "DisposeAsync returns once the queue's count is 0, not when the loop has finished, so the last command is written after disposal (or lost if the output is completed by then).",
            "DisposeAsync while the background loop still holds a dequeued command (publisher ahead of the loop at the end of a run).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new DisposeHangsOnStallWriter(c),
            BugClass.Lifecycle,
            "DisposeAsync awaits the loop with no drain timeout and never cancels the pending flush.",
            "DisposeAsync while the transport is stalled and a flush is pending.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new DisposeLeaksQueuedWriter(c),
            BugClass.Lifecycle,
            "When DisposeAsync gives up draining and cancels the loop, the loop treats that as a clean exit and never releases the command in hand or the queued ones.",
            "DisposeAsync with a stalled output and commands still queued (drain timeout).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new DisposeAwaitsFlushWriter(c),
            BugClass.Lifecycle,
            "DisposeAsync waits for the write in progress by awaiting that write's pending flush ValueTask, which its call is already awaiting.",
            "Disposal while a flush is pending (a stalled output).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new DisposeLeavesCallInFlightWriter(c),
            BugClass.Lifecycle,
            "DisposeAsync only marks the writer disposed and returns: the call in progress, its flush held by a stalled output, is still in flight, and its bytes go out after disposal returned.",
            "Disposal while a flush is pending (a stalled output), the output draining afterwards.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new CancelledFlushRetriedWriter(c),
            BugClass.Lifecycle,
            "A flush that comes back cancelled is retried as a spurious wake-up, so the give-up of DisposeAsync leaves a new flush pending when disposal returns.",
            "Disposal that gives up on an output stalled through it.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new DisposeCompletesOutputWriter(c),
            BugClass.Lifecycle,
            "DisposeAsync drains correctly, then completes the output, which belongs to the connection.",
            "Any disposal.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new AcceptsAfterDisposeWriter(c),
            BugClass.Lifecycle,
            "Calls made during or after DisposeAsync release their command and report success instead of throwing ObjectDisposedException.",
            "A publish that races with, or follows, disposal."
        ),
        // 2. Visibility
        E(
            c => new FlushEveryFourthWriter(c),
            BugClass.Visibility,
            "Flushes only every fourth command but completes every call, so up to three completed publishes sit unflushed.",
            "A publisher that pauses (or waits for a confirm) after a number of publishes that is not a multiple of four."
        ),
        E(
            c => new LazyFlushWriter(c),
            BugClass.Visibility,
            "Flushes the previous call's bytes at the start of the next call and completes its own without flushing.",
            "The last publish before a pause or before disposal."
        ),
        E(
            c => new MethodLeftUnflushedWriter(c),
            BugClass.Visibility,
            "Writes a command without content (an ack, a cancel, a close) and completes its call without flushing: the next publish's flush is meant to carry it out.",
            "A call without content that is the last before a pause or before disposal."
        ),
        E(
            c => new StaleBurstFlagWriter(c),
            BugClass.Visibility,
            "The loop decides once per wake-up that \"more than one is queued, the next round will flush\" and skips the flush; when the burst ends in that round, its commands stay unflushed.",
            "The loop wakes up to two or more queued commands and no further publish follows (a burst, then a pause).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new PendingCounterSkipsFlushWriter(c),
            BugClass.Visibility,
            "Skips the flush while a counter says more commands are coming; a caller cancelled while waiting for queue space never decrements it, so the loop never flushes again.",
            "A call cancelled while the queue is full; every later publish then stays unflushed until disposal.",
            WriterCompletion.OnAccept
        ),
        // 3. Queue full / backpressure
        E(
            c => new UnboundedQueueWriter(c),
            BugClass.QueueFull,
            "The background writer's queue is unbounded (QueueCapacity ignored), so body copies pile up behind a stalled transport.",
            "A stalled transport and a publisher that keeps publishing.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new DropOldestWhenFullWriter(c),
            BugClass.QueueFull,
            "The bounded queue uses FullMode.DropOldest, so a full queue silently evicts an already-acknowledged command, unwritten and unreleased.",
            "The queue fills up (stalled transport) and one more publish arrives.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new CancelledSpaceWaitEnqueuesWriter(c),
            BugClass.QueueFull,
            "Waits for queue space with WriteAsync(item).AsTask().WaitAsync(token): cancelling abandons the wait but not the write, so a cancelled, already-released command is enqueued and written later.",
            "A call cancelled while waiting for space in a full queue.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new BatchCarryStallsWriter(c),
            BugClass.QueueFull,
            "Keeps the entry it read past its 32-command batch cap outside the queue, and its loop runs only while the queue is not empty.",
            "More than 32 calls queued at once with none after them (a pipelining caller).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new ByteBudgetWriter(c),
            BugClass.QueueFull,
            "Bounds the queue at QueueCapacity x frame_max bytes and reads a budget of 0 as unlimited, so with frame_max 0 the queue is unbounded.",
            "frame_max 0 (unlimited) with a stalled transport.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new UnboundedPendingListWriter(c),
            BugClass.QueueFull,
            "While another caller writes, callers park a body copy on an unbounded list and complete at once; nobody is ever made to wait.",
            "A slow or stalled transport with several concurrent publishers.",
            WriterCompletion.OnAccept
        ),
        // 4. After a fault
        E(
            c => new SwallowAfterFaultWriter(c),
            BugClass.AfterFault,
            "After the output failed, later calls release their command and report success.",
            "Any publish after the call whose flush failed."
        ),
        E(
            c => new BlocksCallerWriter(c),
            BugClass.QueueFull,
            "WriteAsync takes its turn with a blocking SemaphoreSlim.Wait, holding the caller's thread while another call's flush is stalled.",
            "A call made while another call's flush is held by a stalled output.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new StoppedAsCancellationWriter(c),
            BugClass.AfterFault,
            "After the output failed, later calls release their command and throw OperationCanceledException, though no token was cancelled.",
            "Any publish after the call whose flush failed."
        ),
        E(
            c => new KeepWritingAfterFaultWriter(c),
            BugClass.AfterFault,
            "The background loop records a failed flush and goes on writing the next queued command into the failed output.",
            "A fault while further commands are already queued.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new HangAfterFaultWriter(c),
            BugClass.AfterFault,
            "On a fault the batching loop fails its batch and returns without completing the queue, so queued and later calls never complete.",
            "Any call queued at, or made after, the fault.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new FaultReportedOnceWriter(c),
            BugClass.AfterFault,
            "Reporting the fault clears it (Interlocked.Exchange with null), so the second call after a fault writes into the dead output again.",
            "Two or more calls after the fault.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new IgnoresCompletedFlushWriter(c),
            BugClass.AfterFault,
            "Checks FlushResult.IsCanceled but not IsCompleted, so a reader that completed cleanly is never noticed.",
            "The output's reader completes without an exception (orderly close seen as FlushResult.IsCompleted)."
        ),
        E(
            c => new PiggybackedMethodsWriter(c),
            BugClass.AfterFault,
            "Commands without content that arrive during the lock holder's flush are written after it and their calls completed before the flush that delivers them.",
            "A command without content during a pending flush, and the output stalling or failing again right after that flush.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new SucceedsOnFailedFlushWriter(c),
            BugClass.AfterFault,
            "When its write or flush throws an IOException, the inline writer stops but reports success to the call that hit it, although that command never reached the broker whole.",
            "A reset or close that fails the flush of a call in progress.",
            WriterCompletion.AfterFlush
        ),
        // 5. Ordering under contention
        E(
            c => new LifoQueueWriter(c),
            BugClass.Ordering,
            "Queues commands in a ConcurrentStack and writes each TryPopRange batch newest first.",
            "Two or more commands queued at once (a publisher ahead of the loop).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new ControlLaneOvertakesWriter(c),
            BugClass.Ordering,
            "Keeps commands without content in a fast lane that the loop empties before the publishes queued ahead of them.",
            "A call without content made while an earlier publish, whose call completed on enqueue, is still queued.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new ConnectionLaneOvertakesWriter(c),
            BugClass.Ordering,
            "Writes each round's channel-0 commands (the connection's own: heartbeats, close, update-secret) before the publishes queued ahead of them.",
            "A channel-0 command made while an earlier publish, whose call completed on enqueue, is still queued.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new TwoDrainLoopsWriter(c),
            BugClass.Ordering,
            "Two loops drain the same FIFO queue, each serializing its command outside the output lock, and race each other to that lock.",
            "Two or more commands queued at once, a larger one ahead of a smaller one (the smaller one finishes serializing first).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new FastPathOvertakesWriter(c),
            BugClass.Ordering,
            "The inline fast path checks only that the output gate is free, so a new call overtakes a command that is queued while the loop has not yet woken to take the gate.",
            "Contention (a command queued behind a fast-path writer) followed by a call that finds the gate free before the loop takes it.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new RoundRobinChannelsWriter(c),
            BugClass.Ordering,
            "Per-channel queues drained round-robin, so a command queued later on one channel overtakes an earlier, already-completed one on another.",
            "Two channels with queued commands, one of them holding two or more.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new SmallFirstWriter(c),
            BugClass.Ordering,
            "The loop sorts each batch of up to 16 queued commands by size, smallest first.",
            "A batch in which a larger command is queued ahead of a smaller one.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new HeartbeatDroppedWhenBusyWriter(c),
            BugClass.Ordering,
            "Drops a queued heartbeat frame when other commands are in its batch or queued behind it (\"any traffic is a heartbeat\"), although the heartbeat's call completed on enqueue.",
            "A heartbeat call made while other commands are queued (a held or slow flush, concurrent publishers).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new HeartbeatHeldBackWriter(c),
            BugClass.Ordering,
            "Writes each round's heartbeats after every other command it took, so a command queued after a heartbeat overtakes it although the heartbeat's call completed first.",
            "A heartbeat still queued when a later call's command is queued behind it.",
            WriterCompletion.OnAccept
        ),
        // 6. Cancellation timing
        E(
            c => new StaleRegistrationWriter(c),
            BugClass.Cancellation,
            "Returns its pooled queue entry without disposing the caller's token registration, so a token cancelled after its call completed cancels whichever call reuses the entry.",
            "A token cancelled after its call completed while another call waits in the queue.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new RegistrationDisposedUnderLockWriter(c),
            BugClass.Cancellation,
            "Disposes a taken call's token registration while holding the lock the registration's callback takes: a cancellation that arrives as the loop takes its command deadlocks the loop and the thread that cancelled.",
            "A token cancelled while the loop is taking its command from the queue.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new CancellationStopsWriterWriter(c),
            BugClass.Cancellation,
            "One catch-all around the wait for its lock, the write and the flush: a caller's cancellation is taken for an output failure, that call fails with FrameWriterFaultedException and the writer stops for good.",
            "A call whose token is cancelled before it gets the lock.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new FlushWithCallerTokenWriter(c),
            BugClass.Cancellation,
            "Passes the caller's token to FlushAsync and reports a cancelled flush as the call's cancellation, though the frames are already in the output.",
            "Cancellation landing as the command's flush starts or while it waits for backpressure.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new CancelBetweenBodyFramesWriter(c),
            BugClass.Cancellation,
            "Flushes per frame and honours the token between body frames, leaving the method, header and some body frames on the wire.",
            "Cancellation after the first flush of a command with a non-empty body.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new CancelledSlotLeakWriter(c),
            BugClass.Cancellation,
            "Re-checks the token after getting a queue slot and throws without giving the slot back, so each such cancellation shrinks the queue for good.",
            "Cancellations that land just as a slot is granted, QueueCapacity of them in a connection's life.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new RegisteredCancelStillWrittenWriter(c),
            BugClass.Cancellation,
            "Registers TrySetCanceled on the caller's token but leaves the entry queued, so the loop writes a call that reported cancellation.",
            "Cancellation while the command waits in the queue or its batch is being flushed.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new ClaimAfterReserveWriter(c),
            BugClass.Cancellation,
            "Its loop checks a queued call's cancelled flag, reserves the output's memory for the command and only then claims the entry: a cancellation in between completes the call as cancelled, and the loop writes it all the same.",
            "A token cancelled after the loop took the call and checked it, before it wrote the call's bytes (cancel:writeN).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new CancelPendingFlushOnTokenWriter(c),
            BugClass.Cancellation,
            "Registers CancelPendingFlush on the caller's token during the flush and reports IsCanceled as the call's cancellation; the bytes were already committed.",
            "Cancellation landing during (or just before) the command's flush.",
            WriterCompletion.AfterFlush
        ),
        // 7. Wire format
        E(
            c => new SixteenBitSizeWriter(c),
            BugClass.WireFormat,
            "Writes a body frame's size as 16 bits into the low half of the 32-bit size field.",
            "A body frame over 65,535 bytes (frame_max 0 or above 65,543, with a body that large).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new FrameMaxMinusSevenWriter(c),
            BugClass.WireFormat,
            "Slices bodies at frame_max - 7 (forgot the frame-end octet), so full body frames are frame_max + 1 bytes.",
            "A body of at least frame_max - 7 bytes under a finite frame_max.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new ChannelLowByteBodyWriter(c),
            BugClass.WireFormat,
            "Writes only the low byte of the channel number into body frames (an encoder copied from the heartbeat's, whose channel is 0).",
            "A body on channel 256 or above.",
            WriterCompletion.AfterFlush
        ),
        // 8. Command shape
        E(
            c => new EvenSplitWriter(c),
            BugClass.CommandShape,
            "Spreads a multi-frame body evenly over its frames instead of full frame_max - 8 frames and a shorter last one.",
            "A body needing two or more frames whose length is not an exact multiple of frame_max - 8.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new EmptyBodyFrameWriter(c),
            BugClass.CommandShape,
            "A do/while body loop sends one empty body frame for an empty body.",
            "A publish with an empty body.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new ExtraFrameOnExactMultipleWriter(c),
            BugClass.CommandShape,
            "Counts body frames as length / max + 1, so an exact multiple of frame_max - 8 gets a trailing empty body frame.",
            "A body of exactly k x (frame_max - 8) bytes.",
            WriterCompletion.AfterFlush
        ),
        // 9. Interleaving
        E(
            c => new SplitAfterFirstBodyFrameWriter(c),
            BugClass.Interleaving,
            "Releases the lock after the first body frame and re-takes it for the rest of the body.",
            "A body spanning several frames while another publisher (other channel) waits for the lock.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new FrameRoundRobinWriter(c),
            BugClass.Interleaving,
            "The loop sends one frame per channel per turn across a batch, interleaving commands of different channels.",
            "Two queued commands on different channels, one with a body spanning several frames.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new FastPathIntoCutCommandWriter(c),
            BugClass.Interleaving,
            "Cuts a batch at 1 MiB even inside a command, and between batches lets a caller it just completed take the uncontended fast path into the middle of the cut command.",
            "More than 1 MiB queued at once (large bodies from several publishers) and a completed caller publishing again at once.",
            WriterCompletion.AfterFlush
        ),
        // 10. Bodies
        E(
            c => new LargeBodyNoCopyWriter(c),
            BugClass.Bodies,
            "A background writer that completes on enqueue skips the copy for bodies of 85,000 bytes or more and writes them later from the caller's memory.",
            "A body of 85,000 bytes or more, without an owner, written after its call completed and the caller reused the memory.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new SliceOffsetIgnoredWriter(c),
            BugClass.Bodies,
            "Copies the body from index 0 of the array behind it instead of from the segment's offset.",
            "A body that is a slice starting past the beginning of its array.",
            WriterCompletion.OnAccept
        ),
        // 11. Pools
        E(
            c => new MethodFramesLeakWriter(c),
            BugClass.Pools,
            "Releases only commands with content after the flush (\"nothing to give back without a body\"), so the rented frames of a command without content never return.",
            "Any call without content.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new SourceRecycledOnSignalWriter(c),
            BugClass.Pools,
            "Returns a call's pooled completion source to the pool as soon as it signals it, before the caller has taken the result.",
            "A caller that makes many calls and awaits them afterwards (pipelining).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new StagingLeakOnAsyncFlushWriter(c),
            BugClass.Pools,
            "A one-buffer-per-command writer returns its staging buffer on the synchronous-flush path only.",
            "A flush that does not complete synchronously (backpressure or a slow transport).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new OwnerDisposedBeforeLastFrameWriter(c),
            BugClass.Pools,
            "Disposes the body owner after taking the last body slice but before copying it into the output.",
            "A publish whose body comes with an owner.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new OwnerDisposedTwiceOnCancelWriter(c),
            BugClass.Pools,
            "When the wait for the lock is cancelled, releases the command and then disposes the body owner again.",
            "An owned body whose call is cancelled while waiting for the lock.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new DisposeTwiceReturnsScratchWriter(c),
            BugClass.Pools,
            "Returns the scratch buffer it rented when made on every DisposeAsync call, outside the once-only guard.",
            "DisposeAsync called a second time: after the first returned (Close() then await using), or alongside it.",
            WriterCompletion.AfterFlush
        ),
        // The first six, kept under their original names.
        new(
            BrokenWriterModes.SplitLock,
            BugClass.Interleaving,
            "Takes its lock once for the method and header frames and once more for each body frame, flushing in between.",
            "Concurrent publishers with bodies of more than one frame."
        ),
        new(
            BrokenWriterModes.EarlyCompletion,
            BugClass.Bodies,
            "Completes the caller once the command is queued but copies nothing, then writes the body later from the caller's memory.",
            "A caller that reuses (or returns to a pool) its body buffer after the call completes."
        ),
        new(
            BrokenWriterModes.ThreadPoolDispatch,
            BugClass.Ordering,
            "Copies the body, hands each command to the thread pool and completes the caller at once; whichever pool thread gets the lock first writes first.",
            "A burst of publishes from one caller: they can reach the wire out of call order."
        ),
        new(
            BrokenWriterModes.LeakOnFault,
            BugClass.Pools,
            "Stages the body in a rented buffer and, when the output throws, rethrows without returning it or releasing the command.",
            "A transport fault while a command is being written."
        ),
        new(
            BrokenWriterModes.DoubleReturn,
            BugClass.Pools,
            "Stages the body in a rented buffer that both the per-frame loop's cleanup and the command's cleanup return.",
            "A body of more than one frame."
        ),
        new(
            BrokenWriterModes.TornCancellation,
            BugClass.Cancellation,
            "Writes each body frame's header and half its payload, flushes, then checks the token, throwing with half a frame out.",
            "A cancellation that lands while a body is being written."
        ),
        // Fourth red-team round: DefaultTokenFastPath, StagingTrimEvery256 and DisposeRaceBeforeLock need calls
        // without a token, writers living past 256 calls and disposal racing a call's entry (docs/decisions.md, "Calls
        // without a token, long-lived writers, disposal racing a call").
        E(
            c => new DefaultTokenFastPathWriter(c),
            BugClass.AfterFault,
            "A hot path for calls made without a cancellation token (Wait(0) on the lock, write at once) skips the stopped checks of the slow path, so after a fault or disposal such calls write into the output.",
            "A call with CancellationToken.None (CanBeCanceled false) after a transport fault or after DisposeAsync.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new StagingTrimEvery256Writer(c),
            BugClass.Pools,
            "Keeps one staging buffer per connection and trims it every 256th command right after serializing into it, then writes the command from the buffer it just returned.",
            "The 256th command on one connection (and every 256th after).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new DisposeRaceBeforeLockWriter(c),
            BugClass.Lifecycle,
            "Checks for disposal on entry, copies the body outside the lock, and after taking the lock re-checks only for a fault: a call still copying when DisposeAsync runs writes after disposal returned.",
            "A call that has passed its entry check but not yet reached the lock when DisposeAsync starts (a publish racing connection close).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new DrainThenFlushWriter(c),
            BugClass.QueueFull,
            "One flush per burst: the loop drains every queued command into the pipe, then flushes once; the drained commands no longer count against QueueCapacity while their flush is stalled.",
            "A stalled output with more than QueueCapacity + 1 calls made while it stalls.",
            WriterCompletion.OnAccept
        ),
        E(
            c => new CancelCheckedBeforeFlushWriter(c),
            BugClass.Cancellation,
            "Checks the caller's token after writing the frames and before flushing, and throws OperationCanceledException with the frames already committed to the pipe.",
            "A cancellation landing after the lock was granted and before the command's Write finished.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new ChunkedFlushStopsOnCompletedWriter(c),
            BugClass.AfterFault,
            "Flushes a large body in runs of about 64 KiB; a run's flush that reports IsCompleted returns from the write as if the command were done, and the call reports success.",
            "An orderly close (FlushResult.IsCompleted) landing inside a command of more than 64 KiB.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new RentRoundingOverflowWriter(c),
            BugClass.Pools,
            "Sizes its one-buffer-per-command staging as body / (frame_max - 8) frames (forgetting the partial last one) and relies on ArrayPool rounding up: it overflows when the short length falls within 8 bytes below a power of two.",
            "A command whose undercounted length lands in the last 8 bytes below a power of two.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new ThreadStaticScratchWriter(c),
            BugClass.Bodies,
            "Serializes each command into a [ThreadStatic] scratch buffer before waiting for the lock and writes from it after the wait, by which time its starting thread may have serialized another call into the same array.",
            "A contended lock (the call awaits) and another call run on the thread the first one started on before the first one writes.",
            WriterCompletion.AfterFlush
        ),
        // Fifth red-team round: SlicedBodyReframe, DisposeRethrowsFault and StaleWriteWatchdog need bodies past 1 MiB,
        // a rule on the first disposal's exception and idle connections; FlushOutsideLock is caught by the output
        // noting a writer inside it on two threads at once (concurrent-output-use) (docs/decisions.md, "Bodies past
        // 1 MiB, idle connections, the first disposal, one user of the output").
        E(
            c => new SlicedBodyReframeWriter(c),
            BugClass.CommandShape,
            "Writes a large body in 1 MiB slices with a flush after each, and frames each slice on its own, so every slice but the last ends in a short body frame.",
            "A body of more than 1 MiB at a frame_max whose frame_max - 8 does not divide 1 MiB.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new SingleFrameFastPathOffBy8Writer(c),
            BugClass.Pools,
            "Serializes a command that fits one frame_max-sized staging buffer whole into it, with a fit test that forgets the body frame's 8 bytes of overhead: the write overflows and the writer stops.",
            "A power-of-two frame_max and a body within 8 bytes of frame_max - FramesLength.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new DisposeRethrowsFaultWriter(c),
            BugClass.Lifecycle,
            "The first DisposeAsync rethrows the transport failure that stopped the writer, as disposal that awaits a faulted write loop does.",
            "A transport fault, then disposal.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new StaleWriteWatchdogWriter(c),
            BugClass.AfterFault,
            "A 30 s write-timeout watchdog stamps each flush's start and clears the stamp only after an awaited flush; after a synchronous flush and 30 s of idleness it cancels a flush that is not pending, and the next call's flush returns IsCanceled and stops the writer.",
            "A synchronous flush followed by a connection idle for longer than the write timeout.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new TombstoneReleasedOnFaultWriter(c),
            BugClass.Pools,
            "Cancels a queued call by tombstoning its entry (its caller releases the command); the failure path releases everything still queued, tombstones included.",
            "A queued call cancelled, then a transport fault or a disposal that gives up before the loop reached the tombstone.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new FlushOutsideLockWriter(c),
            BugClass.Interleaving,
            "Writes a command under the connection lock and flushes after releasing it, so flushes run concurrently with other callers' writes.",
            "Several channels publishing at once; disposal while a flush is pending.",
            WriterCompletion.AfterFlush
        ),
        // The red-team rounds (ZooWriters.RedTeam.cs).
        .. RedTeamRounds(),
        .. SharedStateWriters(),
        // Correct but unusual: must pass.
        E(
            c => new PooledCompletionWriter(c),
            BugClass.Correct,
            "Completes calls through pooled ValueTask sources, each reused only after its caller took the result.",
            "Callers that await late (pipelining) as well as at once.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new OneBufferPerCommandWriter(c),
            BugClass.Correct,
            "None: serializes each command into one pooled buffer, one Write and one flush under a lock, completes after the flush.",
            "None.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new FlushPerFrameWriter(c),
            BugClass.Correct,
            "None: flushes after every frame, under one lock held for the whole command.",
            "None.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new BoundedBatchingWriter(c),
            BugClass.Correct,
            "None: bounded queue honouring QueueCapacity, one flush per batch, completes each call after its flush.",
            "None.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new FrameScratchPerConnectionWriter(c),
            BugClass.Correct,
            "None: assembles each body frame in one frame_max-sized scratch buffer per connection, held until disposal.",
            "None.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new DelayedFlushWriter(c),
            BugClass.Correct,
            "None: writes under a lock and completes each call after a 1 ms timer's flush on WriterContext.TimeProvider, the flag cleared before the flush.",
            "None.",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new WriteTimeoutWriter(c),
            BugClass.Correct,
            "None: gives each flush 30 s on WriterContext.TimeProvider before taking the connection for dead, as RabbitMQ.Client's socket write timeout does.",
            "None (the harness never stalls one flush for 20 s or more).",
            WriterCompletion.AfterFlush
        ),
        // Correct with timers or threads of their own, not WriterContext.TimeProvider: a stalled disposal costs them
        // real time, within the factory's DisposeTimeout (30 s), and must never be blamed.
        E(
            c => new OwnTimeoutDisposeWriter(c),
            BugClass.Correct,
            "None: the quickstart's inline writer, whose DisposeAsync waits SemaphoreSlim.WaitAsync(5 s) on the system clock, cancels the pending flush and waits 5 s more.",
            "None (a disposal on a stalled output takes 5 s of real time).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new CancelAfterDrainWriter(c),
            BugClass.Correct,
            "None: a background writer whose disposal bounds its drain with CancellationTokenSource.CancelAfter(2 s).",
            "None (a disposal on a stalled output takes 2 s of real time).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new DelayRaceDrainWriter(c),
            BugClass.Correct,
            "None: a background writer whose disposal races its loop against Task.Delay(1.5 s).",
            "None (a disposal on a stalled output takes 1.5 s of real time).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new SystemTimerFlushWriter(c),
            BugClass.Correct,
            "None: the delayed-flush writer with its 1 ms flush timer and its 1 s disposal bound on System.Threading.Timer.",
            "None (a disposal on a stalled output takes 1 s of real time).",
            WriterCompletion.AfterFlush
        ),
        E(
            c => new MonitorWaitThreadWriter(c),
            BugClass.Correct,
            "None: a dedicated thread polling its queue with Monitor.Wait(5 ms), flushing synchronously; disposal joins it with Thread.Join(1 s).",
            "None (a disposal on a stalled output takes 1 s of real time).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new FinishFrameInFlightWriter(c),
            BugClass.Correct,
            "None: a background writer whose disposal, after Task.Delay(1 s), stops taking queued commands but lets the one in flight finish its flush before dropping the rest.",
            "None (a disposal on a stalled output takes 2 s of real time).",
            WriterCompletion.OnAccept
        ),
        E(
            c => new WallClockWriteTimeoutWriter(c),
            BugClass.Correct,
            "None: an inline writer with a 30 s write timeout on a system-clock CancellationTokenSource and a 1 s SemaphoreSlim disposal wait.",
            "None (the harness never holds a flush for 30 s of real time).",
            WriterCompletion.AfterFlush
        ),
    ];

    /// <summary>The zoo writer called <paramref name="name"/>, case-insensitive, or null: its full name
    /// ("Zoo:LazyFlush", or "Broken:SplitLock" for the first six), or the name without the "Zoo:" prefix.</summary>
    public static ZooEntry? FromName(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return All.FirstOrDefault(e => e.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
            ?? All.FirstOrDefault(e => e.Name.Equals("Zoo:" + name, StringComparison.OrdinalIgnoreCase));
    }
}
