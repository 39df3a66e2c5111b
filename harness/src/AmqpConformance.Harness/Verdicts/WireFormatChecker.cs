using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Wire format: every frame is type|channel|size|payload|0xCE with the size it claims, of a defined type, no
/// larger than frame_max (method and header frames too), and the stream does not end inside a frame unless the
/// transport failed.</summary>
public sealed class WireFormatChecker() : InvariantChecker(InvariantNames.WireFormat)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        foreach (var f in wire.Frames)
        {
            if (!f.FrameEndValid)
                v.Add(
                    "bad-frame-end",
                    $"Frame {f.Sequence} ({f.Type}, channel {f.Channel}, size {f.Size}) does not end with 0xCE: its size field does not match its payload.",
                    [f.Sequence]
                );
            if (!Enum.IsDefined(f.Type))
                v.Add(
                    "unknown-frame-type",
                    $"Frame {f.Sequence} has type octet {(byte)f.Type}, which AMQP 0-9-1 does not define.",
                    [f.Sequence]
                );
            if (evidence.FrameMax > 0 && f.WireLength > evidence.FrameMax)
                v.Add(
                    "frame-exceeds-frame-max",
                    $"Frame {f.Sequence} ({f.Type}) is {f.WireLength} bytes on the wire; frame_max is {evidence.FrameMax}.",
                    [f.Sequence]
                );
        }
        foreach (
            var finding in evidence.Findings.Where(x =>
                x.Rule is "bad-frame-end" or "malformed-frame" or "frame-too-large" or "unknown-frame-type"
            )
        )
            v.Add(finding.Rule, finding.Message, finding.Sequence >= 0 ? [finding.Sequence] : null);
        if (evidence.TrailingPartialBytes > 0 && evidence.Fault is null)
            v.Add(
                "partial-frame",
                $"The stream ends with {evidence.TrailingPartialBytes} bytes that are not a whole frame, and no transport fault explains it."
            );
    }
}
