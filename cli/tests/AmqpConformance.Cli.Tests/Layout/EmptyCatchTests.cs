using System.Text.RegularExpressions;
using AmqpConformance.Cli.Tests.Packaging;

namespace AmqpConformance.Cli.Tests.Layout;

/// <summary>The repository's policy for exceptions caught and not rethrown: an empty catch anywhere in the repository
/// (shipped code in every <c>src/</c> folder, the self-test's writers, tests and their support, benchmarks, samples)
/// says on its line, or the line before it, why nothing is lost by swallowing it (a source already disposed, a peer
/// that reset first, a temporary folder deleted at a test's end). A catch that silently drops a failure is how a
/// harness ends up green on a broken run, and how a test passes for the wrong reason. <see cref="CatchPolicyTests"/>
/// checks the non-empty catches of every exception in shipped code.</summary>
public sealed partial class EmptyCatchTests
{
    [GeneratedRegex(@"catch(\s*\([^)]*\))?(\s*when\s*\((?:[^()]|\([^()]*\))*\))?\s*\{\s*\}")]
    private static partial Regex EmptyCatch();

    [Fact]
    public void Every_empty_catch_says_why_nothing_is_lost()
    {
        string root = RepositoryRoot.Find();
        var unexplained = new List<string>();
        int seen = 0;
        int testFiles = 0;
        foreach (string file in Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(root, file).Replace('\\', '/');
            if (
                relative.StartsWith("artifacts/", StringComparison.Ordinal)
                || relative.StartsWith("TestResults/", StringComparison.Ordinal)
                || relative.Contains("/obj/", StringComparison.Ordinal)
                || relative.Contains("/bin/", StringComparison.Ordinal)
                || relative.Contains("node_modules", StringComparison.Ordinal)
            )
                continue;
            if (relative.Contains("/tests/", StringComparison.Ordinal))
                testFiles++;
            string text = File.ReadAllText(file);
            foreach (Match m in EmptyCatch().Matches(text))
            {
                seen++;
                int lineStart = text.LastIndexOf('\n', m.Index) + 1;
                int lineEnd = text.IndexOf('\n', m.Index + m.Length);
                string line = text[lineStart..(lineEnd < 0 ? text.Length : lineEnd)];
                int previousStart = lineStart >= 2 ? text.LastIndexOf('\n', lineStart - 2) + 1 : 0;
                string previous = lineStart >= 1 ? text[previousStart..Math.Max(previousStart, lineStart - 1)] : "";
                if (
                    line.Contains("//", StringComparison.Ordinal)
                    || previous.TrimStart().StartsWith("//", StringComparison.Ordinal)
                )
                    continue;
                int number = text[..m.Index].Count(c => c == '\n') + 1;
                unexplained.Add($"{relative}:{number}: {line.Trim()}");
            }
        }
        Assert.True(seen > 0, "found no empty catch at all: the scan is looking in the wrong place");
        Assert.True(testFiles > 0, "read no file under a tests/ folder: the scan is looking in the wrong place");
        Assert.True(
            unexplained.Count == 0,
            "Empty catches that do not say why nothing is lost:\n" + string.Join("\n", unexplained)
        );
    }
}
