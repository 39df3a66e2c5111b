using System.Buffers;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>Small helpers shared by the writer tests.</summary>
public static class WriterTestKit
{
    public static readonly TimeSpan TestTimeout = TimeSpan.FromSeconds(20);

    public static OutgoingCommand Publish(
        ArrayPool<byte> pool,
        int frameMax,
        ReadOnlyMemory<byte> body,
        IDisposable? owner = null,
        ushort channel = 1
    ) => CommandBuilder.BuildPublish(pool, frameMax, channel, "", "writer-tests", false, null, body, owner);

    /// <summary>Body sizes that exercise one frame, exactly full frames, one byte over, and several frames.</summary>
    public static int[] SizesFor(int frameMax) =>
        frameMax switch
        {
            0 => [8, 100, 5000, 70_000],
            4096 => [8, 4088, 4089, 10_000, 20_000],
            _ => [8, 1000, frameMax - 8, frameMax - 7, 300_000],
        };

    /// <summary>Awaits a call and reports how it ended: null on success, otherwise the exception. Fails the test if the
    /// call does not complete within <see cref="TestTimeout"/> (a hang).</summary>
    public static async Task<Exception?> Outcome(ValueTask call) => await Outcome(call.AsTask());

    /// <inheritdoc cref="Outcome(ValueTask)"/>
    public static async Task<Exception?> Outcome(Task task)
    {
        if (await Task.WhenAny(task, Task.Delay(TestTimeout)) != task)
            throw new Xunit.Sdk.XunitException(
                $"A writer call did not complete within {TestTimeout.TotalSeconds} s (hang)."
            );
        try
        {
            await task;
            return null;
        }
        catch (Exception ex)
        {
            return ex;
        }
    }

    /// <summary>Calls <paramref name="call"/> (with 0, 1, 2, ...) until one fails, pausing briefly between calls, and
    /// returns that failure. A writer that completes on enqueue may accept calls for a while after its output broke;
    /// this finds the first call that sees the failure. Fails the test if none does within
    /// <see cref="TestTimeout"/>.</summary>
    public static async Task<Exception> CallUntilFailureAsync(Func<int, ValueTask> call)
    {
        using var deadline = new CancellationTokenSource(TestTimeout);
        for (int i = 0; !deadline.IsCancellationRequested; i++)
        {
            if (await Outcome(call(i)) is { } error)
                return error;
            await Task.Delay(5);
        }
        throw new Xunit.Sdk.XunitException(
            $"Calls kept succeeding for {TestTimeout.TotalSeconds} s after the output failed."
        );
    }

    /// <summary>Awaits <paramref name="call"/>, failing with a <see cref="TimeoutException"/> after
    /// <see cref="TestTimeout"/>.</summary>
    public static Task Within(this ValueTask call) => call.AsTask().WaitAsync(TestTimeout);

    /// <inheritdoc cref="Within(ValueTask)"/>
    public static Task<T> Within<T>(this ValueTask<T> call) => call.AsTask().WaitAsync(TestTimeout);

    /// <inheritdoc cref="Within(ValueTask)"/>
    public static Task<T> Within<T>(this Task<T> call) => call.WaitAsync(TestTimeout);

    /// <summary>Waits until <paramref name="condition"/> holds, polling; fails the test after
    /// <see cref="TestTimeout"/>.</summary>
    public static async Task Eventually(Func<bool> condition, string what)
    {
        using var cts = new CancellationTokenSource(TestTimeout);
        while (!condition())
        {
            if (cts.IsCancellationRequested)
                throw new Xunit.Sdk.XunitException($"Timed out waiting until {what}.");
            await Task.Delay(10);
        }
    }
}
