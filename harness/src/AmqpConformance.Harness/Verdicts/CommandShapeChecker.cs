using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Command shape: basic.publish, then a class-60 header whose body size equals the caller's body length, then
/// body frames summing to it, each but the last exactly frame_max - 8 bytes (one body frame at frame_max 0, unlimited),
/// none for an empty body; a call without content is its method frame alone, and each call's command is the kind the
/// caller asked for.</summary>
/// <remarks>A command cut short by an injected transport fault is not held against the writer.</remarks>
public sealed class CommandShapeChecker() : InvariantChecker(InvariantNames.CommandShape)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        var calls = evidence.Calls.ToDictionary(c => c.Id);
        int maxPayload = AmqpConstants.MaxBodyFramePayload(evidence.FrameMax);
        foreach (
            var a in wire.Anomalies.Where(a =>
                a.Rule is "orphan-header" or "orphan-body" or "body-exceeds-declared" or "header-not-basic"
            )
        )
            v.Add(
                a.Rule,
                a.Rule switch
                {
                    "orphan-header" =>
                        $"Header frame {a.Sequence} on channel {a.Channel} follows no basic.publish awaiting one.",
                    "orphan-body" =>
                        $"Body frame {a.Sequence} on channel {a.Channel} follows no content header awaiting a body.",
                    "body-exceeds-declared" =>
                        $"Body frame {a.Sequence} on channel {a.Channel} takes the body past the size its header declared.",
                    _ => $"Header frame {a.Sequence} on channel {a.Channel} is not of class 60 (basic).",
                },
                [a.Sequence],
                a.InterruptedCall is { } c ? [c] : null
            );

        foreach (var cmd in wire.Commands)
        {
            int[] callIds = cmd.CallId is { } id ? [id] : [];
            if (
                cmd.CallId is { } kindId
                && calls.TryGetValue(kindId, out var asked)
                && asked.HasContent != cmd.HasContent
            )
            {
                v.Add(
                    "command-kind-mismatch",
                    $"Call {kindId} asked for {Kind(asked.HasContent)}, but its command on the wire (frame {cmd.FirstSequence}) is {Kind(cmd.HasContent)}.",
                    [cmd.FirstSequence],
                    callIds
                );
                continue;
            }
            if (!cmd.HasContent)
                continue;
            bool cutByFault = evidence.Fault is not null && !cmd.Complete;
            if (cutByFault || cmd.HeaderUndecodable)
                continue;
            if (cmd.HeaderSequence is null)
            {
                v.Add(
                    "missing-header",
                    $"basic.publish (frame {cmd.FirstSequence}) is not followed by a content header on channel {cmd.Channel}.",
                    cmd.FrameSequences,
                    callIds
                );
                continue;
            }
            if (
                cmd.CallId is { } callId
                && calls.TryGetValue(callId, out var call)
                && cmd.DeclaredBodySize != call.ExpectedBody.Length
            )
                v.Add(
                    "declared-size-mismatch",
                    $"Call {callId}'s header (frame {cmd.HeaderSequence}) declares {cmd.DeclaredBodySize} body bytes; the caller's body is {call.ExpectedBody.Length}.",
                    [cmd.HeaderSequence.Value],
                    callIds
                );
            if (!cmd.Complete)
                v.Add(
                    "body-incomplete",
                    $"Command on channel {cmd.Channel} (frame {cmd.FirstSequence}) declared {cmd.DeclaredBodySize} body bytes but only {cmd.BodyBytes} followed.",
                    cmd.FrameSequences,
                    callIds
                );
            for (int i = 0; i < cmd.BodySequences.Count; i++)
            {
                var f = wire.BySequence[cmd.BodySequences[i]];
                bool isLast = i == cmd.BodySequences.Count - 1;
                if (f.Size == 0)
                    v.Add("empty-body-frame", $"Body frame {f.Sequence} is empty.", [f.Sequence], callIds);
                else if (!isLast && evidence.FrameMax == 0)
                    // frame_max 0 is unlimited, so a body goes out as one frame (as the reference writers and
                    // RabbitMQ.Client send it): a non-final body frame here means the writer took 0 for some default
                    // frame_max, such as 131072, and cut the body at it.
                    v.Add(
                        "body-frame-not-full",
                        $"Body frame {f.Sequence} carries {f.Size} bytes and is not the body's last; frame_max is 0 (unlimited), so a body is one body frame.",
                        [f.Sequence],
                        callIds
                    );
                else if (!isLast && f.Size != maxPayload)
                    v.Add(
                        "body-frame-not-full",
                        $"Body frame {f.Sequence} carries {f.Size} bytes; every body frame but the last must carry frame_max - 8 = {maxPayload}.",
                        [f.Sequence],
                        callIds
                    );
            }
        }
    }

    private static string Kind(bool hasContent) =>
        hasContent ? "a basic.publish with content" : "a basic.cancel without content";
}
