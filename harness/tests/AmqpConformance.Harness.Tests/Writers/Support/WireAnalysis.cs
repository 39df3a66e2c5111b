using AmqpConformance.Harness.Verdicts;
using AmqpConformance.TestSupport;

namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>One basic.publish command as the wire carried it: its body frames' payloads laid end to end.</summary>
/// <param name="Channel">The command's channel.</param>
/// <param name="Body">The body bytes that followed its header (fewer than declared if the stream ended first).</param>
/// <param name="EndOffset">The capture offset just past the command's last frame.</param>
public sealed record WirePublish(ushort Channel, byte[] Body, long EndOffset);

/// <summary>
/// Captured writer output judged the way a conformance run judges it: cut into frames by the codec
/// (<see cref="CapturedFrames"/>), regrouped into commands by <see cref="WireAssembly"/>, and checked by the
/// wire-format, command-shape and no-interleaving verdicts. Nothing here parses or judges on its own.
/// </summary>
/// <param name="Publishes">Every basic.publish command, in wire order.</param>
/// <param name="Violations">The three verdicts' violations, as "Invariant/rule: message" lines.</param>
public sealed record WireAnalysis(IReadOnlyList<WirePublish> Publishes, IReadOnlyList<string> Violations)
{
    private static readonly string[] Invariants =
    [
        InvariantNames.WireFormat,
        InvariantNames.CommandShape,
        InvariantNames.NoInterleaving,
    ];

    /// <summary>Judges <paramref name="bytes"/> (whole output of a writer, no protocol header) under
    /// <paramref name="frameMax"/>.</summary>
    public static WireAnalysis Of(byte[] bytes, int frameMax)
    {
        CapturedFrames captured = CapturedFrames.Parse(bytes);
        var evidence = new ConformanceEvidence
        {
            Frames = captured.Frames,
            Calls = [],
            FrameMax = frameMax,
            Findings = captured.Findings,
            TrailingPartialBytes = captured.TrailingPartialBytes,
        };
        var wire = WireAssembly.From(evidence);
        var violations = Invariants
            .SelectMany(i => InvariantCheckers.For(i).Check(evidence, wire).Violations)
            .Select(v => v.ToString())
            .ToList();
        var publishes = wire
            .Commands.Select(c =>
            {
                var last = wire.BySequence[c.LastSequence];
                byte[] body = [.. c.BodySequences.SelectMany(s => wire.BySequence[s].Payload!.Value.ToArray())];
                return new WirePublish(c.Channel, body, last.WireOffset + last.WireLength);
            })
            .ToList();
        return new WireAnalysis(publishes, violations);
    }

    /// <inheritdoc />
    public override string ToString() =>
        Violations.Count == 0
            ? $"{Publishes.Count} publishes, no violations"
            : $"{Publishes.Count} publishes, {Violations.Count} violation(s):\n  "
                + string.Join("\n  ", Violations.Take(20));
}
