using System.Collections.Concurrent;

namespace AmqpConformance.Properties.Running;

/// <summary>Threads of the harness's own, kept for work that must run on a thread other than the caller's and must not
/// wait for the thread pool (which a busy writer may hold): a piece of work goes to an idle one, or to a new one when
/// none is idle, and the thread waits for more once it is done. Starting a thread costs about a millisecond on a loaded
/// machine, handing work to an idle one microseconds. A piece of work that never returns keeps its thread.</summary>
internal static class SpareThreads
{
    private static readonly ConcurrentBag<Worker> Idle = [];

    /// <summary>Runs <paramref name="work"/> on a thread of its own; returns at once. <paramref name="work"/> must not
    /// throw.</summary>
    public static void Run(Action work)
    {
        if (!Idle.TryTake(out var worker))
            worker = Worker.Start();
        worker.Give(work);
    }

    private sealed class Worker
    {
        private readonly SemaphoreSlim _given = new(0);
        private Action? _work;

        public static Worker Start()
        {
            var worker = new Worker();
            new Thread(worker.Loop) { IsBackground = true, Name = "amqp-conformance spare thread" }.Start();
            return worker;
        }

        public void Give(Action work)
        {
            Volatile.Write(ref _work, work);
            _given.Release();
        }

        private void Loop()
        {
            while (true)
            {
                _given.Wait();
                Interlocked.Exchange(ref _work, null)!();
                Idle.Add(this);
            }
        }
    }
}
