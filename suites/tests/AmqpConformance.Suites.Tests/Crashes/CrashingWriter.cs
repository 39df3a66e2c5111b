using System.Threading.Tasks.Sources;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Suites.Tests.Crashes;

/// <summary>A deliberately broken writer that crashes the process, deterministically: its first call completes a
/// <see cref="ManualResetValueTaskSourceCore{TResult}"/> twice on a thread-pool work item (InvalidOperationException,
/// on a thread nobody awaits) and never returns, so that case is in flight whenever the work item runs. Test-only: the
/// self-test's zoo must survive its writers.</summary>
internal sealed class CrashingWriter : IFrameWriter
{
    public static FrameWriterFactory Factory { get; } =
        FrameWriterFactory.Create("Crashing", _ => new CrashingWriter());

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        ThreadPool.UnsafeQueueUserWorkItem(
            _ =>
            {
                var completion = new ManualResetValueTaskSourceCore<bool>();
                completion.SetResult(true);
                completion.SetResult(true); // completed twice: throws here, where nothing can catch it
            },
            null
        );
        Thread.Sleep(Timeout.Infinite);
        return default;
    }

    public ValueTask DisposeAsync() => default;
}

/// <summary>Runs only inside the child <c>dotnet test</c> that <see cref="TestHostCrashTests"/> starts (it kills its
/// test host): skipped elsewhere.</summary>
internal sealed class CrashChildFactAttribute : FactAttribute
{
    public const string Variable = "AMQPC_CRASH_CHILD";

    public CrashChildFactAttribute()
    {
        if (Environment.GetEnvironmentVariable(Variable) != "1")
            Skip =
                $"crashes its test host on purpose: runs only in the child process of {nameof(TestHostCrashTests)} ({Variable}=1)";
    }
}

/// <summary>The suite a client repository would write, on the crashing writer; run by the child process only.</summary>
public sealed class CrashingSuiteChild
{
    private sealed class CrashingSuite : FrameWriterConformanceSuite
    {
        protected override FrameWriterFactory Factory => CrashingWriter.Factory;
    }

    [CrashChildFact]
    public void Order() => new CrashingSuite().Order();
}
