using AmqpConformance.Harness.Writers;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.Writers;

/// <summary>Every suite class carries the nightly soak (<see cref="FrameWriterConformanceSuite.Soak"/>): skipped, with
/// the reason, unless <c>AMQP_CONFORMANCE_SOAK</c> holds a duration, and run on the suite's own writer when it
/// does.</summary>
[Collection(nameof(SuiteSoakTests))] // sets a process-wide variable while it runs
public sealed class SuiteSoakTests(ITestOutputHelper output)
{
    private sealed class CountingSuite(ITestOutputHelper output) : FrameWriterConformanceSuite(output)
    {
        public int Writers;

        protected override FrameWriterFactory Factory =>
            FrameWriterFactory.Create(
                "counting coalescing",
                c =>
                {
                    Interlocked.Increment(ref Writers);
                    return WriterModes.Coalescing.CreateWriter(c);
                },
                WriterModes.Coalescing.Completion
            );
    }

    [Fact]
    public void The_soak_is_skipped_with_its_reason_unless_the_variable_holds_a_duration()
    {
        string? before = Environment.GetEnvironmentVariable(ConformanceSoakAttribute.Variable);
        try
        {
            Environment.SetEnvironmentVariable(ConformanceSoakAttribute.Variable, null);
            Assert.Contains("set AMQP_CONFORMANCE_SOAK to its duration", new ConformanceSoakAttribute().Skip);
            Environment.SetEnvironmentVariable(ConformanceSoakAttribute.Variable, "ten minutes");
            Assert.StartsWith("AMQP_CONFORMANCE_SOAK=ten minutes: ", new ConformanceSoakAttribute().Skip);
            Environment.SetEnvironmentVariable(ConformanceSoakAttribute.Variable, "10m");
            Assert.Null(new ConformanceSoakAttribute().Skip);
            Assert.Equal(TimeSpan.FromMinutes(10), ConformanceSoakAttribute.Duration);
        }
        finally
        {
            Environment.SetEnvironmentVariable(ConformanceSoakAttribute.Variable, before);
        }
    }

    [Fact]
    public async Task A_suite_soaks_its_own_writer_for_the_duration_named()
    {
        string? before = Environment.GetEnvironmentVariable(ConformanceSoakAttribute.Variable);
        try
        {
            Environment.SetEnvironmentVariable(ConformanceSoakAttribute.Variable, "2s");
            var suite = new CountingSuite(output);
            await suite.Soak();
            Assert.Equal(1, suite.Writers); // one writer, one long connection
        }
        finally
        {
            Environment.SetEnvironmentVariable(ConformanceSoakAttribute.Variable, before);
        }
    }
}
