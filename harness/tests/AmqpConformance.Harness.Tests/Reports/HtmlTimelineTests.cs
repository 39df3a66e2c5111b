using System.Globalization;
using System.Text.RegularExpressions;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Tests.Verdicts;
using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Reports;

public class HtmlTimelineTests
{
    private const double PlotLeft = 110,
        PlotWidth = 1100;

    [Fact]
    public void The_axis_spans_the_case_not_the_time_before_it()
    {
        // A case whose activity starts 2 s into the log (after a handshake, say) must still use the plot's width.
        var b = new WireLogBuilder();
        byte[] body = WireLogBuilder.Bytes(100);
        b.Publish(1, 0, body);
        b.Publish(2, 1, body);
        b.Call(0, body, 2000, 2001);
        b.Call(1, body, 2003, 2004, publisher: 1);
        var evidence = b.Evidence(e =>
            e with
            {
                Frames = [.. e.Frames.Select(f => f with { Timestamp = f.Timestamp + TimeSpan.FromSeconds(2) })],
            }
        );

        string html = HtmlTimeline.Render("t", "d", Judgement.Of(evidence), InvariantCheckers.CheckAll(evidence));

        double[] callX =
        [
            .. Regex
                .Matches(html, "<rect x=\"([0-9.]+)\" y=\"5\"")
                .Select(m => double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture)),
        ];
        Assert.NotEmpty(callX);
        Assert.True(
            callX.Min() < PlotLeft + PlotWidth * 0.1,
            $"first call drawn at x={callX.Min()}, squeezed to the right of the plot"
        );
        double axisStart = double.Parse(
            Regex.Match(html, "<text x=\"110\" y=\"[0-9]+\">([0-9.]+) ms</text>").Groups[1].Value,
            CultureInfo.InvariantCulture
        );
        Assert.InRange(axisStart, 1999, 2000);
    }
}
