using System.Globalization;
using System.Net;
using System.Text;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Reports;

/// <summary>
/// Renders one run as a single self-contained HTML file (inline CSS and SVG, no scripts, no external resources): one
/// lane per publisher with its calls as bars from start to end (coloured by outcome), a wire lane with every frame at
/// its arrival time (coloured by the call it belongs to), the violating frames and calls outlined in red, and the frame
/// table below.
/// </summary>
public static class HtmlTimeline
{
    private const int LaneHeight = 28;
    private const int LabelWidth = 110;
    private const int PlotWidth = 1100;

    /// <summary>Renders the timeline.</summary>
    /// <param name="title">The page heading, such as "Inline violates no-interleaving".</param>
    /// <param name="description">Free text shown under the heading (the scenario, the replay line).</param>
    /// <param name="judgement">The run, judged (its commands assembled from the wire once,
    /// <see cref="Judgement.Wire"/>).</param>
    /// <param name="verdicts">Verdicts whose violations are highlighted (usually the failing one).</param>
    public static string Render(string title, string description, Judgement judgement, IReadOnlyList<Verdict> verdicts)
    {
        ArgumentNullException.ThrowIfNull(title);
        ArgumentNullException.ThrowIfNull(description);
        ArgumentNullException.ThrowIfNull(judgement);
        ArgumentNullException.ThrowIfNull(verdicts);
        var evidence = judgement.Evidence;
        var wire = judgement.Wire;
        var badFrames = verdicts.SelectMany(v => v.Violations).SelectMany(v => v.Frames).ToHashSet();
        var badCalls = verdicts.SelectMany(v => v.Violations).SelectMany(v => v.Calls).ToHashSet();
        var callOfFrame = new Dictionary<long, int>();
        foreach (var cmd in wire.Commands)
            if (cmd.CallId is { } id)
                foreach (long s in cmd.FrameSequences)
                    callOfFrame[s] = id;

        // The axis spans the case's own activity, not the time since the log started (the handshake
        // before it would squeeze every bar into the right-hand edge).
        var times = evidence
            .Calls.SelectMany(c => new[] { c.Started, c.Ended ?? c.Started })
            .Concat(wire.Frames.Select(f => f.Timestamp))
            .Select(t => t.TotalMilliseconds)
            .ToList();
        double first = times.DefaultIfEmpty(0).Min(),
            last = times.DefaultIfEmpty(0).Max();
        double margin = Math.Max(1e-3, (last - first) * 0.02);
        double start = Math.Max(0, first - margin),
            end = last + margin;
        double X(TimeSpan t) => LabelWidth + (t.TotalMilliseconds - start) / (end - start) * PlotWidth;

        var publishers = evidence.Calls.Select(c => c.Publisher).Distinct().Order().ToList();
        int lanes = publishers.Count + 1;
        int height = lanes * LaneHeight + 30;
        var svg = new StringBuilder();
        svg.Append(
            Inv(
                $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{LabelWidth + PlotWidth + 20}\" height=\"{height}\" font-family=\"monospace\" font-size=\"11\">"
            )
        );
        for (int i = 0; i < publishers.Count; i++)
        {
            int y = i * LaneHeight;
            svg.Append(
                Inv(
                    $"<text x=\"4\" y=\"{y + 18}\">publisher {publishers[i]}</text><line x1=\"{LabelWidth}\" x2=\"{LabelWidth + PlotWidth}\" y1=\"{y + LaneHeight}\" y2=\"{y + LaneHeight}\" stroke=\"#eee\"/>"
                )
            );
            foreach (var c in evidence.Calls.Where(c => c.Publisher == publishers[i]))
            {
                double x1 = X(c.Started),
                    x2 = Math.Max(x1 + 2, X(c.Ended ?? TimeSpan.FromMilliseconds(end)));
                string fill = c.Outcome switch
                {
                    CallOutcome.Succeeded => "#8fd18f",
                    CallOutcome.Cancelled => "#f2c46d",
                    CallOutcome.Failed => "#e38b8b",
                    _ => "#bbbbbb",
                };
                string stroke = badCalls.Contains(c.Id) ? " stroke=\"#d00\" stroke-width=\"2\"" : "";
                svg.Append(
                    Inv(
                        $"<rect x=\"{x1:0.##}\" y=\"{y + 5}\" width=\"{x2 - x1:0.##}\" height=\"{LaneHeight - 10}\" fill=\"{fill}\"{stroke}><title>call {c.Id}: #{c.IndexInPublisher} on channel {c.Channel}, {c.ExpectedBody.Length} body bytes, {c.Outcome}{(c.Error is null ? "" : " - " + Esc(c.Error))}</title></rect>"
                    )
                );
                if (x2 - x1 > 24)
                    svg.Append(Inv($"<text x=\"{x1 + 2:0.##}\" y=\"{y + 18}\">{c.Id}</text>"));
            }
        }
        int wy = publishers.Count * LaneHeight;
        svg.Append(Inv($"<text x=\"4\" y=\"{wy + 18}\" font-weight=\"bold\">wire</text>"));
        foreach (var f in wire.Frames)
        {
            double x = X(f.Timestamp);
            bool bad = badFrames.Contains(f.Sequence);
            string color =
                bad ? "#d00"
                : callOfFrame.TryGetValue(f.Sequence, out int id) ? Hue(id)
                : "#555";
            int h = f.Type switch
            {
                FrameType.Method => LaneHeight - 4,
                FrameType.Header => LaneHeight - 10,
                _ => LaneHeight - 16,
            };
            svg.Append(
                Inv(
                    $"<rect x=\"{x:0.##}\" y=\"{wy + LaneHeight - h - 2}\" width=\"{(bad ? 3 : 2)}\" height=\"{h}\" fill=\"{color}\"><title>frame {f.Sequence}: {f.Type} ch {f.Channel} size {f.Size}{(callOfFrame.TryGetValue(f.Sequence, out int c2) ? $" (call {c2})" : "")}</title></rect>"
                )
            );
        }
        svg.Append(
            Inv(
                $"<text x=\"{LabelWidth}\" y=\"{height - 4}\">{start:0.###} ms</text><text x=\"{LabelWidth + PlotWidth - 60}\" y=\"{height - 4}\">{end:0.###} ms</text></svg>"
            )
        );

        var html = new StringBuilder();
        html.Append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>")
            .Append(Esc(title))
            .Append("</title><style>")
            .Append(
                "body{font-family:system-ui,sans-serif;margin:16px}pre{background:#f6f6f6;padding:8px;white-space:pre-wrap}"
            )
            .Append(
                "table{border-collapse:collapse;font-family:monospace;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}"
            )
            .Append("tr.bad{background:#fdd;font-weight:bold}.ok{color:#070}.ko{color:#b00}</style></head><body>");
        html.Append("<h1>").Append(Esc(title)).Append("</h1><pre>").Append(Esc(description)).Append("</pre>");
        html.Append("<h2>Verdicts</h2><ul>");
        foreach (var v in verdicts)
        {
            html.Append(v.Holds ? "<li class=\"ok\">" : "<li class=\"ko\">")
                .Append(Esc(v.Invariant))
                .Append(v.Holds ? ": holds" : $": {v.Violations.Count} violation(s)");
            if (!v.Holds)
            {
                html.Append("<ul>");
                foreach (var x in v.Violations.Take(50))
                    html.Append("<li>").Append(Esc(x.ToString())).Append("</li>");
                html.Append("</ul>");
            }
            html.Append("</li>");
        }
        html.Append(
            "</ul><h2>Timeline</h2><p>Bars: calls (green succeeded, amber cancelled, red failed, grey never completed). Wire: tall = method, medium = header, short = body frame; colour = call; red = violating.</p>"
        );
        html.Append(svg);
        html.Append(
            "<h2>Frames on the wire</h2><table><tr><th>seq</th><th>offset</th><th>time ms</th><th>type</th><th>channel</th><th>size</th><th>call</th><th>note</th></tr>"
        );
        foreach (var f in wire.Frames.Take(5000))
        {
            bool bad = badFrames.Contains(f.Sequence);
            string call = callOfFrame.TryGetValue(f.Sequence, out int id)
                ? id.ToString(CultureInfo.InvariantCulture)
                : "";
            string note = f.Type == FrameType.Header ? Inv($"body size {f.DeclaredBodySize}") : f.MethodName ?? "";
            html.Append(bad ? "<tr class=\"bad\">" : "<tr>")
                .Append(
                    Inv(
                        $"<td>{f.Sequence}</td><td>{f.WireOffset}</td><td>{f.Timestamp.TotalMilliseconds:0.###}</td><td>{f.Type}</td><td>{f.Channel}</td><td>{f.Size}</td><td>{call}</td><td>{Esc(note)}</td></tr>"
                    )
                );
        }
        html.Append("</table>");
        if (wire.Frames.Count > 5000)
            html.Append(Inv($"<p>... {wire.Frames.Count - 5000} more frames in frames.jsonl</p>"));
        html.Append("</body></html>");
        return html.ToString();
    }

    private static string Hue(int id) => Inv($"hsl({id * 67 % 360},65%,40%)");

    private static string Esc(string s) => WebUtility.HtmlEncode(s);

    private static string Inv(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);
}
