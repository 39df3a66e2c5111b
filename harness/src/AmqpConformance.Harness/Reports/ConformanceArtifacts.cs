using System.Text;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Recording.Export;

namespace AmqpConformance.Harness.Reports;

/// <summary>
/// Writes the artifact folder of a failing property: <c>frames.jsonl</c> (the frame log,
/// <see cref="JsonLinesExporter"/>), <c>wire.pcap</c> (<see cref="PcapExporter"/>, opens in Wireshark),
/// <c>timeline.html</c> (<see cref="HtmlTimeline"/>) and <c>summary.txt</c> (the failure message). The folder is
/// <c>&lt;root&gt;/&lt;suite&gt;/&lt;invariant&gt;/</c>; see <see cref="DefaultRoot"/> for the root and
/// <see cref="StaleReports"/> for when old reports are cleared.
/// </summary>
public static class ConformanceArtifacts
{
    /// <summary>The environment variable that overrides the reports root folder.</summary>
    public const string ReportsEnvironmentVariable = "AMQP_CONFORMANCE_REPORTS";

    /// <summary>The root used when <see cref="ReportsEnvironmentVariable"/> is not set, relative to the working
    /// directory.</summary>
    public static readonly string DefaultRelativeRoot = Path.Combine("TestResults", "amqp-conformance");

    /// <summary>
    /// The reports root, as an absolute path: <c>AMQP_CONFORMANCE_REPORTS</c> when set (a relative value is taken from
    /// the current directory), else <c>TestResults/amqp-conformance</c> under the current directory.
    /// </summary>
    /// <remarks>Under <c>dotnet test</c> the test host's current directory is the build output folder, not where the
    /// command was typed. The AmqpConformance.Suites package therefore sets <c>AMQP_CONFORMANCE_REPORTS</c> for the
    /// test host to <c>TestResults/amqp-conformance</c> under the directory <c>dotnet test</c> ran in (or to the user's
    /// own value made absolute from there), so reports land where the user looks for them whatever the output
    /// folder.</remarks>
    public static string DefaultRoot()
    {
        string? root = Environment.GetEnvironmentVariable(ReportsEnvironmentVariable);
        return Path.GetFullPath(string.IsNullOrWhiteSpace(root) ? DefaultRelativeRoot : root);
    }

    /// <summary>The folder for <paramref name="suite"/> and <paramref name="invariant"/> under <paramref name="root"/>
    /// (<see cref="DefaultRoot"/> when null); unsafe characters in names become '_'.</summary>
    public static string FolderFor(string suite, string invariant, string? root = null) =>
        Path.Combine(root ?? DefaultRoot(), Safe(suite), Safe(invariant));

    private static readonly UTF8Encoding Utf8NoBom = new(encoderShouldEmitUTF8Identifier: false);

    /// <summary>Writes the four files into <paramref name="folder"/> (created; existing files replaced) and returns its
    /// absolute path.</summary>
    /// <param name="folder">Where to write.</param>
    /// <param name="title">Heading of the timeline, such as "Inline violates order".</param>
    /// <param name="summary">The failure message (scenario, violations, replay line).</param>
    /// <param name="judgement">The failing run, judged.</param>
    /// <param name="log">The run's frame log.</param>
    /// <param name="verdicts">Verdicts whose violations are highlighted.</param>
    public static string Write(
        string folder,
        string title,
        string summary,
        Judgement judgement,
        FrameLog log,
        IReadOnlyList<Verdict> verdicts
    )
    {
        ArgumentNullException.ThrowIfNull(folder);
        ArgumentNullException.ThrowIfNull(log);
        string full = Path.GetFullPath(folder);
        Directory.CreateDirectory(full);
        using (var jsonl = File.Create(Path.Combine(full, "frames.jsonl")))
            JsonLinesExporter.Write(jsonl, log, "run ended");
        using (var pcap = File.Create(Path.Combine(full, "wire.pcap")))
            PcapExporter.Write(pcap, log);
        File.WriteAllText(
            Path.Combine(full, "timeline.html"),
            HtmlTimeline.Render(title, summary, judgement, verdicts),
            Utf8NoBom
        );
        var swallowed = SwallowedExceptions.Recent(10);
        string setAside =
            swallowed.Count == 0
                ? ""
                : Environment.NewLine
                    + "Exceptions the harness caught and set aside in this process (latest "
                    + $"{swallowed.Count} of {SwallowedExceptions.Count}):"
                    + Environment.NewLine
                    + string.Join(Environment.NewLine, swallowed.Select(x => "  " + x))
                    + Environment.NewLine;
        File.WriteAllText(Path.Combine(full, "summary.txt"), summary + Environment.NewLine + setAside, Utf8NoBom);
        return full;
    }

    private static string Safe(string name)
    {
        var chars = name.Select(c => char.IsLetterOrDigit(c) || c is '-' or '_' or '.' ? c : '_').ToArray();
        return chars.Length == 0 ? "_" : new string(chars);
    }
}
