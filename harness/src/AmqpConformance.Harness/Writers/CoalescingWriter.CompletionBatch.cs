using System.IO.Pipelines;
using System.Threading.Channels;
using System.Threading.Tasks.Sources;

namespace AmqpConformance.Harness.Writers;

public sealed partial class CoalescingWriter
{
    /// <summary>
    /// The calls of one flushed batch, completed together by one thread-pool work item: the callers' continuations run
    /// one after another on that thread (not on the writer's loop, which is already writing the next batch), so a
    /// batch costs one thread hop instead of one per call, and a caller that blocks delays only its batch-mates.
    /// </summary>
    private sealed class CompletionBatch(CoalescingWriter owner) : IThreadPoolWorkItem
    {
        private readonly List<PendingWrite> _entries = [];
        private readonly List<Exception?> _errors = [];

        public int Count => _entries.Count;

        public void Add(PendingWrite entry, Exception? error)
        {
            _entries.Add(entry);
            _errors.Add(error);
        }

        /// <summary>Marks every entry as failed with a fresh exception from <paramref name="error"/>.</summary>
        public void FailAll(Func<Exception?> error)
        {
            for (int i = 0; i < _errors.Count; i++)
                _errors[i] = error();
        }

        /// <summary>Releases every entry's command (frames back to the pool, body owner disposed): its bytes are out,
        /// or the writer gave up on it.</summary>
        public void ReleaseCommands(System.Buffers.ArrayPool<byte> pool)
        {
            foreach (var entry in _entries)
                entry.ReleaseCommand(pool);
        }

        public void Execute()
        {
            for (int i = 0; i < _entries.Count; i++)
            {
                _entries[i].SignalCompletion(_errors[i]);
                _entries[i].ReleaseReference();
            }
            _entries.Clear();
            _errors.Clear();
            owner.ReturnBatch(this);
        }
    }
}
