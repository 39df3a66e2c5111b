using System.Text.RegularExpressions;
using AmqpConformance.Cli.Tests.Packaging;

namespace AmqpConformance.Cli.Tests.Documentation;

/// <summary>
/// The README is a front page (at most 200 lines) and every relative link in it and in docs/, the samples' and the
/// packages' READMEs resolves to a file inside the repository, and to a heading of that file when it names one.
/// </summary>
public sealed partial class DocumentationLinkTests
{
    private static readonly string Root = RepositoryRoot.Find();

    public static TheoryData<string> MarkdownFiles()
    {
        var files = new TheoryData<string>();
        foreach (
            string file in Directory
                .EnumerateFiles(Root, "*.md", SearchOption.AllDirectories)
                .Select(f => Path.GetRelativePath(Root, f).Replace('\\', '/'))
                .Where(f =>
                    !f.StartsWith("artifacts/", StringComparison.Ordinal)
                    && !f.Contains("/bin/", StringComparison.Ordinal)
                    && !f.Contains("/obj/", StringComparison.Ordinal)
                    && !f.Contains("node_modules/", StringComparison.Ordinal)
                )
                .Order(StringComparer.Ordinal)
        )
            files.Add(file);
        return files;
    }

    [Theory]
    [MemberData(nameof(MarkdownFiles))]
    public void Every_relative_link_resolves_inside_the_repository(string markdown)
    {
        string path = Path.Combine(Root, markdown);
        foreach (Match link in Link().Matches(WithoutCode(File.ReadAllText(path))))
        {
            string target = link.Groups["target"].Value;
            if (
                target.StartsWith("http://", StringComparison.Ordinal)
                || target.StartsWith("https://", StringComparison.Ordinal)
            )
            {
                Assert.DoesNotContain("example.invalid", target, StringComparison.Ordinal);
                continue;
            }
            string[] parts = target.Split('#', 2);
            string file =
                parts[0].Length == 0 ? path : Path.GetFullPath(Path.Combine(Path.GetDirectoryName(path)!, parts[0]));
            Assert.True(
                file.StartsWith(Root + Path.DirectorySeparatorChar, StringComparison.Ordinal) || file == Root,
                $"{markdown}: {target} points outside the repository"
            );
            Assert.True(File.Exists(file) || Directory.Exists(file), $"{markdown}: {target} does not exist");
            if (parts.Length == 2)
            {
                string[] anchors =
                [
                    .. Heading()
                        .Matches(Fence().Replace(File.ReadAllText(file), ""))
                        .Select(h => Slug(h.Groups["text"].Value)),
                ];
                Assert.True(
                    anchors.Contains(parts[1]),
                    $"{markdown}: {target}: no heading #{parts[1]} in {parts[0]} (has: {string.Join(", ", anchors)})"
                );
            }
        }
    }

    [Fact]
    public void The_README_is_a_front_page_that_links_every_page_of_docs()
    {
        string readme = File.ReadAllText(Path.Combine(Root, "README.md"));
        int lines = readme.TrimEnd('\n').Split('\n').Length;
        Assert.True(lines <= 200, $"README.md has {lines} lines; the rest belongs in docs/");
        Assert.DoesNotContain("../shared", readme, StringComparison.Ordinal);
        string[] linked = [.. Link().Matches(WithoutCode(readme)).Select(m => m.Groups["target"].Value.Split('#')[0])];
        foreach (
            string page in Directory
                .EnumerateFiles(Path.Combine(Root, "docs"), "*.md")
                .Select(f => "docs/" + Path.GetFileName(f))
        )
            Assert.Contains(page, linked);
    }

    [Fact]
    public void Slugs_follow_GitHub()
    {
        Assert.Equal("where-reports-go", Slug("Where reports go"));
        Assert.Equal("options-fakeamqpbrokeroptions", Slug("Options (`FakeAmqpBrokerOptions`)"));
        Assert.Equal(
            "faults-faultplan-in-process-transport-tcp-fault-proxy-toxiproxy",
            Slug("Faults: FaultPlan, in-process transport, TCP fault proxy, Toxiproxy")
        );
    }

    /// <summary>GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces as
    /// '-'.</summary>
    private static string Slug(string heading) =>
        new string(
            heading.Trim().ToLowerInvariant().Where(c => char.IsLetterOrDigit(c) || c is ' ' or '-' or '_').ToArray()
        ).Replace(' ', '-');

    /// <summary>The text without fenced code blocks and inline code, where brackets are code, not links.</summary>
    private static string WithoutCode(string markdown) => InlineCode().Replace(Fence().Replace(markdown, ""), "");

    [GeneratedRegex(@"\[(?<text>[^\]]*)\]\((?<target>[^)\s]+)\)")]
    private static partial Regex Link();

    [GeneratedRegex(@"^#{1,6}\s+(?<text>.+?)\s*$", RegexOptions.Multiline)]
    private static partial Regex Heading();

    [GeneratedRegex(@"^```.*?^```", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex Fence();

    [GeneratedRegex(@"`[^`\n]*`")]
    private static partial Regex InlineCode();
}
