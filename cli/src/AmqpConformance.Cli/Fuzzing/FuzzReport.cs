using System.Globalization;

namespace AmqpConformance.Cli.Fuzzing;

/// <summary>What one fuzz run did and found. <see cref="Write"/> prints it; a run is clean when every failure list is
/// empty. Each failure names the case and its seed, so <c>--seed</c> replays it.</summary>
internal sealed class FuzzReport
{
    public required string Target { get; init; }
    public required int Seed { get; init; }

    /// <summary>What was sent: "frames" for the broker, "requests" for the API.</summary>
    public required string Unit { get; init; }
    public long Sent { get; set; }
    public long Cases { get; set; }
    public TimeSpan Elapsed { get; set; }

    /// <summary>The broker's own internal-error findings (it failed while serving a connection).</summary>
    public List<string> Crashes { get; } = [];

    /// <summary>Connections that did not end, or requests that got no answer, within the bound.</summary>
    public List<string> Hangs { get; } = [];

    /// <summary>Exceptions nobody handled (unobserved tasks, unhandled on a thread).</summary>
    public List<string> Unhandled { get; } = [];

    /// <summary>HTTP answers of 500 or more.</summary>
    public List<string> ServerErrors { get; } = [];

    /// <summary>Broken promises that are not crashes: an accepted name that cannot be read back, an error without the
    /// JSON body.</summary>
    public List<string> ContractViolations { get; } = [];

    /// <summary>How the cases ended, counted by kind (close codes, status codes, ...).</summary>
    public SortedDictionary<string, long> Outcomes { get; } = new(StringComparer.Ordinal);

    public long HeapBefore { get; set; }
    public long HeapAfter { get; set; }
    public long RssBefore { get; set; }
    public long RssAfter { get; set; }
    public long RssPeak { get; set; }

    public bool Clean =>
        Crashes.Count == 0
        && Hangs.Count == 0
        && Unhandled.Count == 0
        && ServerErrors.Count == 0
        && ContractViolations.Count == 0;

    public void Count(string outcome)
    {
        lock (Outcomes)
            Outcomes[outcome] = Outcomes.GetValueOrDefault(outcome) + 1;
    }

    public void Add(List<string> list, string failure)
    {
        lock (list)
            list.Add(failure);
    }

    /// <summary>Prints the report: a header line, one line per failure kind with its count (and up to 10 examples),
    /// memory, outcomes, and the verdict line "clean" or "FAILED".</summary>
    public void Write(TextWriter output)
    {
        var c = CultureInfo.InvariantCulture;
        output.WriteLine(
            string.Create(
                c,
                $"fuzz {Target}: seed {Seed}, {Sent} {Unit} in {Cases} {(Target == "broker" ? "connections" : "requests")}, {Elapsed.TotalSeconds:F1} s"
            )
        );
        Section(output, "crashes (broker internal errors)", Crashes);
        Section(output, "hangs", Hangs);
        Section(output, "unhandled exceptions", Unhandled);
        Section(output, "responses >= 500", ServerErrors);
        Section(output, "contract violations", ContractViolations);
        output.WriteLine(
            string.Create(
                c,
                $"  memory: managed heap {Mib(HeapBefore)} -> {Mib(HeapAfter)} MiB, RSS {Mib(RssBefore)} -> {Mib(RssAfter)} MiB (peak {Mib(RssPeak)} MiB)"
            )
        );
        lock (Outcomes)
            output.WriteLine(
                "  outcomes: " + string.Join(", ", Outcomes.Select(o => string.Create(c, $"{o.Key} {o.Value}")))
            );
        output.WriteLine(
            Clean
                ? "verdict: clean"
                : string.Create(
                    c,
                    $"verdict: FAILED (replay: amqp-conformance fuzz {Target} --seed {Seed} --{Unit} {Sent}{(Target == "broker" ? "" : "; --parallel 1 replays the order too")})"
                )
        );
    }

    private static void Section(TextWriter output, string title, List<string> items)
    {
        string[] copy;
        lock (items)
            copy = [.. items];
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {title}: {copy.Length}"));
        foreach (string item in copy.Take(10))
            output.WriteLine("    " + Shorten(item));
    }

    private static string Shorten(string text)
    {
        string line = text.ReplaceLineEndings(" | ");
        return line.Length <= 400 ? line : line[..400] + "...";
    }

    private static string Mib(long bytes) => (bytes / 1048576.0).ToString("F1", CultureInfo.InvariantCulture);
}
