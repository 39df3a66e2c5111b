using System.Globalization;
using System.Text;
using System.Xml;
using System.Xml.Linq;

namespace AmqpConformance.Cli;

/// <summary>
/// A run's or a merge's verdicts as JUnit XML (<c>run --junit FILE</c>, <c>merge --junit FILE</c>), for CI systems that
/// read it (GitLab, Jenkins, CircleCI, test-reporter actions). Written from the same <see cref="PropertyVerdict"/>s as
/// the verdict table and the failure reports on the console, never worked out again. The contract:
/// <list type="bullet">
/// <item>One <c>testsuites</c> root named <c>amqp-conformance</c>, with the totals <c>tests</c>, <c>failures</c>,
/// <c>errors</c> (always 0), <c>skipped</c> and <c>time</c> (seconds: the sum of its test cases' times).</item>
/// <item>One <c>testsuite</c> per writer, named after it (<c>Background</c>, <c>Zoo:LifoQueue</c>), with the same
/// totals for its own test cases and <c>properties</c>: <c>seed</c> and <c>shard</c> when the run had them (a merge:
/// <c>seed</c> and <c>shards</c>, their number), <c>casesPerProperty</c>, and <c>interrupted</c> (<c>true</c> when the
/// run, or a merged shard, was stopped before it finished, so the file holds what had run; else <c>false</c>).</item>
/// <item>One <c>testcase</c> per property of the writer, named after it (<c>order</c>), with <c>classname</c>
/// <c>amqp-conformance.&lt;writer&gt;</c> and <c>time</c> in seconds when known.</item>
/// <item>A property that failed has a <c>failure</c> of <c>type</c> <c>violation</c>: its <c>message</c> is the one
/// line the verdict table shows (<c>VIOLATED after 3 case(s): order</c>), its text the failure report the console
/// prints, the replay line included as printed.</item>
/// <item>A property that did not run (interrupted, not run, or not in every shard of a merge) and did not fail has a
/// <c>skipped</c> whose <c>message</c> says which.</item>
/// </list>
/// The file is written whole or not at all (<see cref="ResultsFile.WriteWhole"/>: <c>FILE.tmp</c>, then moved), its
/// folder made when missing.
/// </summary>
/// <param name="verdicts">Every property of every writer, in the order the file lists them (grouped by writer, in the
/// order each writer first appears).</param>
internal sealed class JUnitReport(IReadOnlyList<PropertyVerdict> verdicts)
{
    /// <summary>The run's seed, if it had one.</summary>
    public ulong? Seed { get; init; }

    /// <summary>The run's shard (<c>K/N</c>), if it ran one.</summary>
    public string? Shard { get; init; }

    /// <summary>How many shards a merge combined, when it combined shards.</summary>
    public int? Shards { get; init; }

    /// <summary>The cases per property the run generated.</summary>
    public int CasesPerProperty { get; init; }

    /// <summary>Whether the run (or a merged shard) was stopped before it finished.</summary>
    public bool Interrupted { get; init; }

    /// <summary>The document, as <see cref="Write"/> writes it.</summary>
    public XDocument ToXml()
    {
        var suites = verdicts.GroupBy(v => v.Writer).Select(Suite).ToList();
        var root = new XElement("testsuites", new XAttribute("name", CliApplication.Name));
        AddTotals(root, verdicts);
        root.Add(suites);
        return new XDocument(new XDeclaration("1.0", "utf-8", null), root);
    }

    /// <summary>Writes the document to <paramref name="path"/>, whole or not at all.</summary>
    /// <exception cref="IOException">The file could not be written (or <paramref name="path"/> is a
    /// folder).</exception>
    /// <exception cref="UnauthorizedAccessException">The file could not be written.</exception>
    public void Write(string path)
    {
        var document = ToXml();
        var settings = new XmlWriterSettings { Indent = true, Encoding = new UTF8Encoding(false) };
        ResultsFile.WriteWhole(path, stream =>
        {
            using var writer = XmlWriter.Create(stream, settings);
            document.Save(writer);
        });
    }

    private XElement Suite(IGrouping<string, PropertyVerdict> writer)
    {
        var suite = new XElement("testsuite", new XAttribute("name", Clean(writer.Key)));
        AddTotals(suite, [.. writer]);
        var properties = new XElement("properties");
        if (Seed is { } seed)
            properties.Add(Property("seed", seed.ToString(CultureInfo.InvariantCulture)));
        if (Shard is { } shard)
            properties.Add(Property("shard", shard));
        if (Shards is { } shards)
            properties.Add(Property("shards", shards.ToString(CultureInfo.InvariantCulture)));
        properties.Add(Property("casesPerProperty", CasesPerProperty.ToString(CultureInfo.InvariantCulture)));
        properties.Add(Property("interrupted", Interrupted ? "true" : "false"));
        suite.Add(properties);
        foreach (var verdict in writer)
            suite.Add(TestCase(verdict));
        return suite;
    }

    private static XElement TestCase(PropertyVerdict verdict)
    {
        var testCase = new XElement(
            "testcase",
            new XAttribute("name", Clean(verdict.Property)),
            new XAttribute("classname", Clean($"{CliApplication.Name}.{verdict.Writer}"))
        );
        if (verdict.Seconds is { } seconds)
            testCase.Add(new XAttribute("time", Time(seconds)));
        if (verdict.Failed)
            testCase.Add(
                new XElement(
                    "failure",
                    new XAttribute("message", Clean(CliApplication.OneLine($"VIOLATED {verdict.Finding}"))),
                    new XAttribute("type", "violation"),
                    Clean(verdict.Report ?? verdict.Finding!)
                )
            );
        else if (verdict.NotRun is { } why)
            testCase.Add(new XElement("skipped", new XAttribute("message", Clean(why))));
        return testCase;
    }

    private static void AddTotals(XElement element, IReadOnlyCollection<PropertyVerdict> cases)
    {
        var times = cases.Where(v => v.Seconds is not null).Select(v => Math.Round(v.Seconds!.Value, 3)).ToList();
        element.Add(
            new XAttribute("tests", cases.Count),
            new XAttribute("failures", cases.Count(v => v.Failed)),
            new XAttribute("errors", 0),
            new XAttribute("skipped", cases.Count(v => !v.Failed && v.NotRun is not null))
        );
        if (times.Count > 0)
            element.Add(new XAttribute("time", Time(times.Sum())));
    }

    private static XElement Property(string name, string value) =>
        new("property", new XAttribute("name", name), new XAttribute("value", Clean(value)));

    /// <summary>Seconds as the JSON has them: rounded to milliseconds, invariant culture.</summary>
    private static string Time(double seconds) =>
        Math.Round(seconds, 3).ToString("0.###", CultureInfo.InvariantCulture);

    /// <summary><paramref name="text"/> with every character XML 1.0 cannot hold (control characters a violation's
    /// message might quote) as <c>\uXXXX</c>, which the XML writer would otherwise refuse half way through the
    /// file.</summary>
    private static string Clean(string text)
    {
        if (text.All(XmlConvert.IsXmlChar))
            return text;
        var sb = new StringBuilder(text.Length);
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            if (XmlConvert.IsXmlChar(c))
                sb.Append(c);
            else if (i + 1 < text.Length && XmlConvert.IsXmlSurrogatePair(text[i + 1], c))
                sb.Append(c).Append(text[++i]);
            else
                sb.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}");
        }
        return sb.ToString();
    }
}
