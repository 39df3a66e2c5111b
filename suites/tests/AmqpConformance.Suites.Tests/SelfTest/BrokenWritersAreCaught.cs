using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest;
using AmqpConformance.SelfTest.Zoo;
using Xunit.Abstractions;

namespace AmqpConformance.Suites.Tests.SelfTest;

/// <summary>The harness's self-test: every deliberately broken writer of the zoo must fail the conformance properties
/// themselves (as a client repository's suite runs them, default cases), and every correct but unusual one must hold.
/// Prints the kill-matrix row: what caught it, after how many cases. The same as <c>amqp-conformance
/// selftest</c>.</summary>
[Trait("Category", "SelfTest")]
public sealed class BrokenWritersAreCaught(ITestOutputHelper output)
{
    public static TheoryData<string> Broken => [.. ZooWriters.All.Where(e => !e.IsCorrect).Select(e => e.Name)];

    public static TheoryData<string> Correct => [.. ZooWriters.All.Where(e => e.IsCorrect).Select(e => e.Name)];

    [Theory]
    [MemberData(nameof(Broken))]
    public void A_broken_writer_fails_a_conformance_property(string name)
    {
        var result = KillMatrix.Run(ZooWriters.FromName(name)!);
        output.WriteLine(
            $"{name} ({result.Entry.Class}): {(result.Caught ? $"caught by {result.Failure!.Invariant} after {result.CasesRun} case(s): {string.Join(", ", result.Rules)}" : "MISSED")} in {result.Elapsed.TotalSeconds:0.0} s"
        );
        Assert.True(
            result.Caught,
            $"{name} passed every conformance property ({result.CasesRun} cases): the harness missed it. Its bug: {result.Entry.Bug} Trigger: {result.Entry.Trigger}"
        );
        Assert.NotNull(result.Failure!.Replay);
        Assert.NotNull(result.Failure.Counterexample);
    }

    [Theory]
    [MemberData(nameof(Correct))]
    public void A_correct_but_unusual_writer_holds(string name)
    {
        var result = KillMatrix.Run(ZooWriters.FromName(name)!);
        Assert.False(result.Caught, result.Failure?.Describe());
        Assert.Equal(12 * Properties.PropertyRunOptions.DefaultCases, result.CasesRun);
    }

    [Fact]
    public void Every_zoo_writer_type_is_catalogued_and_says_what_it_is()
    {
        var assembly = typeof(ZooWriters).Assembly;
        var doc = System.Xml.Linq.XDocument.Load(Path.ChangeExtension(assembly.Location, ".xml"));
        string Summary(Type t) =>
            doc.Descendants("member")
                .FirstOrDefault(m => (string?)m.Attribute("name") == $"T:{t.FullName}")
                ?.Element("summary")
                ?.Value.Trim()
            ?? "";
        var writerTypes = assembly
            .GetTypes()
            .Where(t => typeof(IFrameWriter).IsAssignableFrom(t) && !t.IsAbstract)
            .ToList();
        Assert.Equal(ZooWriters.All.Count + SoakZoo.All.Count, writerTypes.Count);
        Assert.Equal(ZooWriters.All.Count, ZooWriters.All.Select(e => e.Name).Distinct().Count());
        foreach (var type in writerTypes)
        {
            string bare = type.Name[..^"Writer".Length];
            var entry = ZooWriters.FromName(bare)
                ?? ZooWriters.All.SingleOrDefault(e => e.Name == "Broken:" + bare)
                ?? SoakZoo.FromName(bare);
            Assert.True(entry is not null, $"{type.Name} is not in ZooWriters.All");
            Assert.Equal(entry.IsCorrect, type.Namespace!.EndsWith(".Correct", StringComparison.Ordinal));
            if (!entry.IsCorrect)
                Assert.StartsWith("DELIBERATELY BROKEN:", Summary(type), StringComparison.Ordinal);
        }
        Assert.True(ZooWriters.All.Count(e => !e.IsCorrect) >= 24);
        Assert.True(ZooWriters.All.Count(e => e.IsCorrect) >= 2);
        foreach (
            var bugClass in new[]
            {
                BugClass.Lifecycle,
                BugClass.Visibility,
                BugClass.QueueFull,
                BugClass.AfterFault,
                BugClass.Ordering,
                BugClass.Cancellation,
            }
        )
            Assert.True(
                ZooWriters.All.Count(e => e.Class == bugClass) >= 3,
                $"fewer than 3 writers of class {bugClass}"
            );
    }
}
