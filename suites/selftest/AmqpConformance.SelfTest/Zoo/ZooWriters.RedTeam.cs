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

/// <content>The writers of the red-team rounds (broken writers written without sight of the harness's generators),
/// kept together by round; what each round took to catch is in docs/decisions.md.</content>
public static partial class ZooWriters
{
    /// <summary>The red-team rounds' entries (a method, not a static field: the catalogue's initializer in the other
    /// part of this class calls it, whatever order the parts' static initializers run in).</summary>
    private static ZooEntry[] RedTeamRounds() =>
        [
            .. RedTeamRound9(),
            // Sixth red-team round (docs/decisions.md, "Spread channels, opaque bodies, time passing under a stall").
            E(
                c => new BodyHeaderCacheWriter(c),
                BugClass.WireFormat,
                "Caches the header of a full body frame in a table indexed by the channel's low byte, tagged with the payload size only, so channels 256 apart share a cached header.",
                "Two channels whose numbers differ by a multiple of 256 both sending a body of more than one frame at the same frame_max.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new UnhintedSpanWriter(c),
                BugClass.WireFormat,
                "Encodes each body frame's 7-byte header into PipeWriter.GetSpan() without a size hint, trusting that spans are whole segments; a shorter span makes the encoder throw and the writer stop.",
                "A body frame that starts less than 7 bytes before the end of the pipe's current segment.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new SpanPastHintWriter(c),
                BugClass.WireFormat,
                "Encodes a small body's whole frame (header, up to 64 bytes of payload, frame end) into PipeWriter.GetSpan(7), trusting the span to be larger than asked for; a span of just the hint makes the copy throw and the writer stop.",
                "A body of at most 64 bytes when the output hands out no more memory than asked for (noisy cases; a pipe near the end of a segment).",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new NonArrayBodyCopyWriter(c),
                BugClass.Bodies,
                "Copies a body that is not backed by an array into a rented buffer and stages it with the rented buffer's length, so the pool's rounding goes out after the body.",
                "A body in native memory (a MemoryManager that is not over an array) whose length the pool rounds up.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new QueueBoundOffByOneWriter(c),
                BugClass.QueueFull,
                "Bounds its queue at QueueCapacity + 1, forgetting the command the loop holds, so QueueCapacity + 2 calls complete without a flush while the output stalls.",
                "A stalled output with QueueCapacity + 2 or more calls made while it stalls.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new EmptyBodyOwnerLeakWriter(c),
                BugClass.Pools,
                "Releases a delivered command by hand and disposes its body owner only when the body has bytes.",
                "A publish with an empty body that comes with a body owner.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new SyncFlushUncheckedWriter(c),
                BugClass.AfterFault,
                "Checks a flush's result only when the flush had to be awaited; a flush that completed at once with IsCompleted (the reader gone) counts as delivered.",
                "An orderly close of the transport, then any call.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new IdleTrimDuringStallWriter(c),
                BugClass.Pools,
                "A 10 s trim timer returns the connection's staging buffer once no call has started for 10 s, without the lock, while a call stalled on its flush still reads its remaining pieces from it.",
                "A command of more than 16 KiB whose flush stays stalled across a trim tick (10 s of the writer's clock).",
                WriterCompletion.AfterFlush
            ),
            // Seventh red-team round (docs/decisions.md, "frame_max 0, frame_max above 131072, and a frame buffer").
            E(
                c => new FrameMaxZeroAsDefaultWriter(c),
                BugClass.CommandShape,
                "Reads a negotiated frame_max of 0 as \"not negotiated\" and frames bodies at RabbitMQ's default 131072, so at frame_max 0 a body of more than 131064 bytes goes out as several body frames instead of one.",
                "frame_max 0 and a body of more than 131064 bytes.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new FrameMaxFloorWriter(c),
                BugClass.CommandShape,
                "Raises a negotiated frame_max below 8192 to 8192 (a misremembered minimum) when it frames bodies, so body frames exceed the negotiated limit.",
                "A negotiated frame_max from 4096 to 8191 and a body of more than frame_max - 8 bytes.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new RepublishFramesCacheWriter(c),
                BugClass.Bodies,
                "Reuses the body frames it encoded last when a body comes in the same array, offset, length and channel, so a caller that refills its body buffer sends the previous message again.",
                "Two publishes in a row on one channel from the same body memory with different contents.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new PreCancelledTokenLeakWriter(c),
                BugClass.Pools,
                "Returns a cancelled task for a call whose token is already cancelled before taking ownership of the command, so its frames buffer and body owner are never released.",
                "A call made with a token that is already cancelled.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new ConnectionFramesBypassWriter(c),
                BugClass.Interleaving,
                "Writes and flushes channel-0 commands without content (heartbeats, connection.close) without the lock while another call is inside its write or flush.",
                "A channel-0 command without content made while another call's flush is pending or its frames are being written.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new FixedQueueCapacityWriter(c),
                BugClass.QueueFull,
                "Bounds its background queue at a hard-coded 128 instead of WriterContext.QueueCapacity, so under a smaller configured capacity up to 129 calls complete unflushed while the output stalls.",
                "A QueueCapacity below 128 and more than QueueCapacity + 1 calls made while the output stalls.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new LateCancelSkipsQueuedWriter(c),
                BugClass.Cancellation,
                "A background writer that completes on enqueue keeps each call's token with its entry and skips, unwritten, an entry whose token was cancelled by the time the loop reaches it.",
                "A call that completed on enqueue and whose token is cancelled before the loop writes its command.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new FixedFrameScratchWriter(c),
                BugClass.Pools,
                "Assembles body frames in a per-connection scratch of frame_max bytes capped at 131072 (RabbitMQ's default taken for its maximum), so a full body frame under a larger negotiated frame_max overflows it and the writer stops.",
                "A negotiated frame_max above 131072 and a body of more than 131064 bytes.",
                WriterCompletion.AfterFlush
            ),
            // Eighth red-team round (docs/decisions.md, "Headers that differ in value, ..."). HeaderShapeCache needs
            // headers that differ in value, OwnerMemoryPreferred an IMemoryOwner<byte> body owner,
            // FaultOnlyOnIOException a transport failure that is not an IOException; writers it does not reach are
            // named in docs/writers.md ("What the harness does not reach") and kept out.
            E(
                c => new ScratchLengthAsFrameMaxWriter(c),
                BugClass.WireFormat,
                "Frames bodies in a per-connection scratch rented as Rent(frame_max) and slices them by scratch.Length - 8, so the pool's rounding up makes full body frames longer than frame_max.",
                "A frame_max that is not a power of two and a body of more than frame_max - 8 bytes.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new OwnerMemoryPreferredWriter(c),
                BugClass.Bodies,
                "Frames an owned body from the first Body.Length bytes of its IMemoryOwner's memory instead of from Body.",
                "A body owner that is an IMemoryOwner<byte> whose memory does not start with the body.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new FaultOnlyOnIOExceptionWriter(c),
                BugClass.AfterFault,
                "Stops only on an IOException; any other exception from the write or flush fails that call alone and the writer goes on writing into the failed output.",
                "An output that fails with an exception that is not an IOException (SocketException, ObjectDisposedException).",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new ArenaResetWhenQueueEmptyWriter(c),
                BugClass.Bodies,
                "Copies small bodies into a per-connection bump arena and rewinds it whenever nothing is queued, forgetting the loop's command in hand and callers that staged but have not queued yet.",
                "Two publishers staging small bodies at once on an idle queue, or a call staging while the loop copies the last queued command.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new HeaderShapeCacheWriter(c),
                BugClass.WireFormat,
                "Reuses the channel's last content header frame, body size patched, when the new one has the same length and property flags, so changed property values of the same length go out stale.",
                "Two publishes on one channel with the same property flags and encoded length but different property values.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new ReleasedBeforeFlushWriter(c),
                BugClass.Pools,
                "Releases each command once its bytes are in the output, before the flush, and the shared failure path releases it again when the flush fails.",
                "A flush that throws, reports IsCompleted or is cancelled by a disposal that gives up.",
                WriterCompletion.AfterFlush
            ),
            // Eighth round, needing a continuing caller and a stall train (docs/decisions.md, "Callers that continue
            // inside the writer's completion", "Calls queued behind flushes stalled one after another").
            E(
                c => new DelayedFlushLostWakeupWriter(c),
                BugClass.Visibility,
                "A delayed-flush timer clears its \"flush scheduled\" flag after releasing its lock and signalling its batch, so a call written in between (from a completion's continuation) arms nothing and is never flushed.",
                "A caller whose next call runs from the previous call's completion, inline, with no other call after it.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new CallDeadlineIncludesWaitWriter(c),
                BugClass.QueueFull,
                "Gives each call a 90 s write deadline from the moment it is made, so time spent waiting for the lock behind other calls' stalled flushes counts against it.",
                "A call queued behind flushes a slow peer stalls one after another, 90 s in all, each stalled for less than a write timeout.",
                WriterCompletion.AfterFlush
            ),
        ];

    /// <summary>The ninth red-team round's broken writers (docs/decisions.md, "Bodies of one length"):
    /// RingCopyExactFill needs bodies of one length; the one the harness does not reach is named in docs/writers.md
    /// ("What the harness does not reach") and kept out. GroupCommit and DedicatedThread are the round's correct
    /// ones.</summary>
    private static ZooEntry[] RedTeamRound9() =>
        [
            E(
                c => new LockWaitResultIgnoredWriter(c),
                BugClass.Interleaving,
                "Waits for its write lock for at most 30 s of the writer's clock and discards whether it got it, so a call that waited longer writes without the lock and its release lets another caller in.",
                "A call that waits more than 30 s for the lock behind other calls' stalled flushes.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new CancelledWaitReleasesSlotWriter(c),
                BugClass.QueueFull,
                "Gives its queue slot back in a finally unless the command was queued, also when the wait for the slot was cancelled and took none, so each such cancellation adds a slot for good.",
                "A call cancelled while the queue is full, then more than QueueCapacity + 1 calls while the output stalls.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new FifoLockCancelledWaiterWriter(c),
                BugClass.Cancellation,
                "A hand-written FIFO async lock leaves a cancelled waiter queued and hands the lock to it on exit, ignoring that TrySetResult failed, so the lock is held by nobody for ever.",
                "A call cancelled while waiting for the lock, then the holder exits.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new SemaphoreDisposedOnFaultWriter(c),
                BugClass.AfterFault,
                "Disposes its SemaphoreSlim when the output fails instead of releasing it; Dispose wakes no one, so callers parked on the lock never complete.",
                "A call waiting for the lock when the output fails.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new LazyScratchRaceWriter(c),
                BugClass.Pools,
                "Rents its per-connection frame scratch lazily with _scratch ??= Rent() before taking the lock, so two first bodies at once rent twice and one rental never goes back.",
                "Two publishers whose first bodies reach the writer at the same time.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new TombstoneSkipsFlushWriter(c),
                BugClass.Visibility,
                "Decides to flush only right after writing an entry, so a cancelled (tombstoned) entry at the end of the queue leaves the entries written before it unflushed and their calls pending.",
                "A queued call cancelled behind other queued calls, with nothing queued after it.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new FrameMaxAsUInt16Writer(c),
                BugClass.CommandShape,
                "Keeps frame_max in a ushort, so 131072 becomes 0 (unlimited) and other values of 65536 or more keep only their low 16 bits.",
                "A frame_max of 65536 or more and a body of more than one frame.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new GiveUpSucceedsQueuedWriter(c),
                BugClass.Lifecycle,
                "When disposal gives up draining, ends the calls still queued with success after releasing their unwritten commands.",
                "Disposal that gives up on a stalled output with calls still queued.",
                WriterCompletion.AfterFlush
            ),
            E(
                c => new RingCopyExactFillWriter(c),
                BugClass.Bodies,
                "Copies bodies of up to 64 KiB into a per-connection ring buffer and accepts a copy that ends exactly at the oldest live copy, so after an exact fill head == tail reads as empty and the next copy overwrites bodies not yet written.",
                "Bodies of one length queued behind a slow output until the ring wraps, then more.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new DedicatedThreadWriter(c),
                BugClass.Correct,
                "None: a background writer whose loop runs on a dedicated thread and blocks it on the queue and on each flush (RabbitMQ.Client 6.x's design).",
                "None.",
                WriterCompletion.OnAccept
            ),
            E(
                c => new GroupCommitWriter(c),
                BugClass.Correct,
                "None: writes under the lock, then takes it again to flush everything written unless an earlier flush carried its command (group commit).",
                "None.",
                WriterCompletion.AfterFlush
            ),
        ];
}
