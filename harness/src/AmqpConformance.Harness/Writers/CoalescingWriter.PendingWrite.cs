using System.IO.Pipelines;
using System.Threading.Channels;
using System.Threading.Tasks.Sources;

namespace AmqpConformance.Harness.Writers;

public sealed partial class CoalescingWriter
{
    /// <summary>
    /// One queued call: the command, its completion, and a small state machine deciding, exactly once, whether the
    /// loop writes it or a cancellation releases it. Two references hold it (the caller's ValueTask and the loop);
    /// it goes back to the pool when both let go.
    /// </summary>
    private sealed class PendingWrite(CoalescingWriter owner) : IValueTaskSource
    {
        private const int Queued = 0,
            Writing = 1,
            Cancelled = 2;

        // Continuations run synchronously on whoever signals: a CompletionBatch work item, a canceller, or a caller
        // settling its own entry; never the writer's loop.
        private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = false };
        private CancellationTokenRegistration _registration;
        private CancellationToken _token;
        private int _state;
        private int _references;

        public OutgoingCommand Command { get; private set; }

        public short Start(OutgoingCommand command, CancellationToken cancellationToken)
        {
            Command = command;
            _token = cancellationToken;
            _state = Queued;
            _references = 2;
            _core.Reset();
            short version = _core.Version;
            // Registered before the entry is queued, so the loop never sees a half-set registration.
            if (cancellationToken.CanBeCanceled)
                _registration = cancellationToken.UnsafeRegister(static s => ((PendingWrite)s!).OnCancelled(), this);
            return version;
        }

        /// <summary>Claims the entry for writing; false when a cancellation claimed it first. From here on the token no
        /// longer matters, so its registration is removed (waiting out a callback in flight, which lost the
        /// race).</summary>
        public bool TryStartWriting()
        {
            if (Interlocked.CompareExchange(ref _state, Writing, Queued) != Queued)
                return false;
            _registration.Dispose();
            _registration = default;
            return true;
        }

        /// <summary>Releases the command; only after <see cref="TryStartWriting"/> returned true.</summary>
        public void ReleaseCommand(System.Buffers.ArrayPool<byte> pool)
        {
            Command.Release(pool);
            Command = default;
        }

        /// <summary>Completes the caller; only after <see cref="ReleaseCommand"/>.</summary>
        public void SignalCompletion(Exception? error)
        {
            if (error is null)
                _core.SetResult(true);
            else
                _core.SetException(error);
        }

        private void OnCancelled()
        {
            if (Interlocked.CompareExchange(ref _state, Cancelled, Queued) != Queued)
                return;
            Command.Release(owner._context.Pool);
            Command = default;
            // Not inline: the caller's continuation must not run inside whoever called Cancel().
            ThreadPool.UnsafeQueueUserWorkItem(
                static entry => entry._core.SetException(new OperationCanceledException(entry._token)),
                this,
                preferLocal: false
            );
        }

        public void ReleaseReference()
        {
            if (Interlocked.Decrement(ref _references) != 0)
                return;
            _registration = default;
            _token = default;
            owner.ReturnEntry(this);
        }

        public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

        public void OnCompleted(
            Action<object?> continuation,
            object? state,
            short token,
            ValueTaskSourceOnCompletedFlags flags
        ) => _core.OnCompleted(continuation, state, token, flags);

        public void GetResult(short token)
        {
            try
            {
                _core.GetResult(token);
            }
            finally
            {
                ReleaseReference();
            }
        }
    }
}
