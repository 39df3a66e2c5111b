using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties;
using AmqpConformance.Properties.Running;
using Xunit;
#if !XUNIT_V3
using Xunit.Abstractions;
#endif

namespace AmqpConformance.Suites;

/// <summary>
/// The frame-writer conformance suite: one test per invariant, each an FsCheck property over generated scenarios run
/// against writers from <see cref="Factory"/> in process (tracking pool, faulty transport, the fake broker's frame
/// log). A test's invariant biases what it generates; every case is judged on every invariant, and each test prints the
/// events its cases produced. A client repository subclasses it in its test project and overrides
/// <see cref="Factory"/>; tag the subclass with <c>[Trait("WriterMode", "...")]</c> to select it with <c>dotnet test
/// --filter WriterMode=...</c>.
/// </summary>
/// <remarks>Cases per property: <see cref="DefaultCases"/>, overridden by <c>AMQP_CONFORMANCE_CASES</c>; replay one
/// case with <c>AMQP_CONFORMANCE_REPLAY=seed,gamma,size</c>. A failure prints the invariant, the shrunk scenario, the
/// violations, the replay line and the artifact folder
/// (<c>TestResults/amqp-conformance/&lt;suite&gt;/&lt;invariant&gt;/</c>, root overridable with
/// <c>AMQP_CONFORMANCE_REPORTS</c>; a suite's folder is cleared when its first property starts in a process).</remarks>
public abstract class FrameWriterConformanceSuite(ITestOutputHelper? output = null)
{
    /// <summary>The writer under test.</summary>
    protected abstract FrameWriterFactory Factory { get; }

    /// <summary>Cases per property when neither the environment nor the attribute says otherwise.</summary>
    protected virtual int DefaultCases => PropertyRunOptions.DefaultCases;

    /// <summary>Every frame is type|channel|size|payload|0xCE with the size it claims; none exceeds
    /// frame_max.</summary>
    [ConformanceProperty]
    public void WireFormat() => Verify(InvariantNames.WireFormat);

    /// <summary>basic.publish, header with the body's length, body frames of frame_max - 8 summing to it.</summary>
    [ConformanceProperty]
    public void CommandShape() => Verify(InvariantNames.CommandShape);

    /// <summary>Each command's frames are contiguous on the wire, and per channel.</summary>
    [ConformanceProperty]
    public void NoInterleaving() => Verify(InvariantNames.NoInterleaving);

    /// <summary>Non-overlapping calls reach the wire in call order; publishers keep their order; nothing lost or
    /// duplicated.</summary>
    [ConformanceProperty]
    public void Order() => Verify(InvariantNames.Order);

    /// <summary>The wire carries the caller's bytes as at call time; nothing is read after completion.</summary>
    [ConformanceProperty]
    public void Bodies() => Verify(InvariantNames.Bodies);

    /// <summary>Rentals come back exactly once; body owners are disposed once, after their bytes.</summary>
    [ConformanceProperty]
    public void Pools() => Verify(InvariantNames.Pools);

    /// <summary>After a write fault: nothing more goes out, calls fail promptly and clearly, nothing hangs.</summary>
    [ConformanceProperty]
    public void Faults() => Verify(InvariantNames.Faults);

    /// <summary>Cancellation is all or nothing.</summary>
    [ConformanceProperty]
    public void Cancellation() => Verify(InvariantNames.Cancellation);

    /// <summary>With a stalled output, calls accepted without being flushed and memory held stay within the queue
    /// capacity.</summary>
    [ConformanceProperty]
    public void Backpressure() => Verify(InvariantNames.Backpressure);

    /// <summary>A call that completed successfully has its bytes flushed without any further action by the
    /// caller.</summary>
    [ConformanceProperty]
    public void Visibility() => Verify(InvariantNames.Visibility);

    /// <summary>Disposal completes within its bound; pending calls complete; calls after disposal fail; nothing is
    /// written after it.</summary>
    [ConformanceProperty]
    public void Lifecycle() => Verify(InvariantNames.Lifecycle);

    /// <summary>The fake broker, validating like RabbitMQ (strict profile), accepts every byte.</summary>
    [ConformanceProperty]
    public void Broker() => Verify(InvariantNames.Broker);

    /// <summary>The nightly soak: one writer from <see cref="Factory"/> over one long connection for
    /// <c>AMQP_CONFORMANCE_SOAK</c> (rounds of concurrent calls, a stall every tenth), failing if a resource a leak
    /// grows (rentals, bytes held, transport backlog) grows while the writer is idle, or calls stop completing. Skipped,
    /// with the reason, unless that variable holds a duration; select it with <c>dotnet test --filter
    /// Category=Soak</c>.</summary>
    [ConformanceSoak]
    [Trait("Category", "Soak")]
    public async Task Soak()
    {
        var result = await SoakRunner
            .RunAsync(Factory, SoakOptions.For(ConformanceSoakAttribute.Duration))
            .ConfigureAwait(false);
        var last = result.Samples.Count > 0 ? result.Samples[^1] : null;
        output?.WriteLine(
            $"{result.Writer}: {result.Rounds} rounds, {result.Calls} calls in {result.Elapsed}; last idle sample: {last}"
        );
        if (!result.Holds)
            throw new ConformanceViolationException(
                $"{result.Writer} failed the soak:{Environment.NewLine}{string.Join(Environment.NewLine, result.Violations)}"
            );
    }

    /// <summary>Checks <paramref name="invariant"/>'s property and fails the test with a full report if it does not
    /// hold.</summary>
    protected void Verify(string invariant, [System.Runtime.CompilerServices.CallerMemberName] string testMethod = "")
    {
        var options = PropertyVerification.OptionsFor(this, testMethod, invariant, DefaultCases);
        var outcome = ConformanceProperties.Check(Factory, invariant, options);
        PropertyVerification.Report(outcome, options, output);
    }
}
