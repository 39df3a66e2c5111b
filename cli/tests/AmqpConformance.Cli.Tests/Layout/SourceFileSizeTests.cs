using AmqpConformance.Cli.Tests.Packaging;

namespace AmqpConformance.Cli.Tests.Layout;

/// <summary>No hand-written C# source file in the repository is over 400 lines: a file that grows past that holds more
/// than one concept and is split by responsibility (generated code is written by the generator into obj/ and is not
/// counted). Lines that hold only brackets and punctuation are not counted: CSharpier gives each bracket of a wrapped
/// call its own line. The zoo's catalogue is exempt: it is one table, an entry per writer, and grows with the
/// zoo.</summary>
public sealed class SourceFileSizeTests
{
    private const int MaxLines = 400;

    private static readonly string[] Exempt = ["suites/selftest/AmqpConformance.SelfTest/Zoo/ZooWriters.cs"];

    [Fact]
    public void No_source_file_is_over_400_lines()
    {
        string root = RepositoryRoot.Find();
        var sources = Directory
            .EnumerateFiles(root, "*.cs", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(root, f).Replace('\\', '/'))
            .Where(f =>
                !f.StartsWith("artifacts/", StringComparison.Ordinal)
                && !f.Contains("/bin/", StringComparison.Ordinal)
                && !f.Contains("/obj/", StringComparison.Ordinal)
                && !f.Contains("node_modules/", StringComparison.Ordinal)
                && !Exempt.Contains(f)
            )
            .ToList();
        Assert.True(sources.Count > 100, $"found only {sources.Count} source files under {root}");
        var tooLong = sources
            .Select(f => (File: f, Lines: File.ReadLines(Path.Combine(root, f)).Count(HoldsMoreThanPunctuation)))
            .Where(f => f.Lines > MaxLines)
            .Select(f => $"{f.File}: {f.Lines} lines")
            .ToList();
        Assert.True(tooLong.Count == 0, "over " + MaxLines + " lines: " + string.Join("; ", tooLong));
    }

    private static bool HoldsMoreThanPunctuation(string line) => line.Any(c => char.IsLetterOrDigit(c) || c == '"');
}
