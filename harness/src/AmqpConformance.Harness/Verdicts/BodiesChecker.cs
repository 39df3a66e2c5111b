using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>Bodies: the body frames of each call carry exactly the caller's bytes as they were at call time. Where the
/// harness poisoned the caller's memory after the call completed, poison on the wire means the writer read the body too
/// late. And a content header whose message-id names a call (<see cref="CallCorrelation.MessageIdFor"/>, as the
/// writer-level runner's publishes carry) names the call of its own command: a writer that sends another publish's
/// properties (a cached header of the same shape) shows as <c>header-mismatch</c>.</summary>
/// <remarks>Compares whole payloads when the log kept them, otherwise each body frame's digest.</remarks>
public sealed class BodiesChecker() : InvariantChecker(InvariantNames.Bodies)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        var calls = evidence.Calls.ToDictionary(c => c.Id);
        foreach (var cmd in wire.Commands)
        {
            if (cmd.CallId is not { } id || !calls.TryGetValue(id, out var call))
                continue;
            CheckHeader(wire, cmd, id, v);
            ReadOnlySpan<byte> expected = call.ExpectedBody.Span;
            long offset = 0;
            foreach (long s in cmd.BodySequences)
            {
                var f = wire.BySequence[s];
                if (offset + f.Size > expected.Length)
                {
                    v.Add(
                        "body-too-long",
                        $"Call {id}'s body frames carry more than the caller's {expected.Length} bytes.",
                        [s],
                        [id]
                    );
                    break;
                }
                ReadOnlySpan<byte> want = expected.Slice((int)offset, f.Size);
                if (f.Payload is { } payload)
                {
                    int diff = FirstDifference(payload.Span, want);
                    if (diff >= 0)
                    {
                        bool poison = call.PoisonedAfterCompletion && payload.Span[diff] == CallRecord.PoisonByte;
                        v.Add(
                            poison ? "read-after-completion" : "body-mismatch",
                            $"Call {id}'s body differs from the caller's bytes at body offset {offset + diff} (frame {s}): wire 0x{payload.Span[diff]:X2}, caller 0x{want[diff]:X2}."
                                + (
                                    poison
                                        ? " The caller's memory was poisoned after the call completed: the writer read the body after completion."
                                        : ""
                                ),
                            [s],
                            [id]
                        );
                        break;
                    }
                }
                else if (f.PayloadDigest is { } digest && digest != FrameDigest.Compute(want))
                {
                    v.Add(
                        call.PoisonedAfterCompletion ? "read-after-completion" : "body-mismatch",
                        $"Call {id}'s body frame {s} (body offset {offset}, {f.Size} bytes) does not match the caller's bytes (digest differs)"
                            + (
                                call.PoisonedAfterCompletion
                                    ? "; the caller's memory was poisoned after completion, so the writer likely read it late."
                                    : "."
                            ),
                        [s],
                        [id]
                    );
                    break;
                }
                offset += f.Size;
            }
        }
    }

    /// <summary>Reports a content header whose message-id names another call than its command's.</summary>
    private static void CheckHeader(WireAssembly wire, AssembledCommand cmd, int id, ViolationList v)
    {
        if (cmd.HeaderSequence is not { } h || cmd.HeaderUndecodable || wire.BySequence[h].Payload is not { } payload)
            return;
        string? messageId;
        try
        {
            messageId = ContentHeader.Decode(payload.Span).Properties.MessageId;
        }
        catch (AmqpDecodeException)
        {
            return; // an undecodable header is the wire format's to report
        }
        if (CallCorrelation.CallIdFromMessageId(messageId) is { } named && named != id)
            v.Add(
                "header-mismatch",
                $"Call {id}'s content header (frame {h}) carries message-id {messageId}, call {named}'s: the writer sent another publish's properties.",
                [h],
                [id, named]
            );
    }

    private static int FirstDifference(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        int n = a.CommonPrefixLength(b);
        return n == a.Length && n == b.Length ? -1 : n;
    }
}
