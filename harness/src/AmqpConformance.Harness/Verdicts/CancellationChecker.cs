namespace AmqpConformance.Harness.Verdicts;

/// <summary>Cancellation is all or nothing: a cancelled call has none of its frames on the wire; a call that failed
/// without any transport fault to explain it has none either (a ghost publish); and the stream never ends inside a
/// frame or a command unless the transport failed. A call reports cancellation only when its caller asked for it (or
/// the writer was disposed or the transport failed): a writer whose leftover registration on another call's token
/// cancels this one is caught. And a call that writes nothing fails only with a cause: a cancelled one ends in
/// <see cref="OperationCanceledException"/>, and one whose token was not cancelled fails only when the transport failed
/// or the writer was disposed.</summary>
public sealed class CancellationChecker() : InvariantChecker(InvariantNames.Cancellation)
{
    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        foreach (var call in evidence.Calls)
        {
            if (!wire.ByCall.TryGetValue(call.Id, out var cmds))
                continue;
            var frames = cmds.SelectMany(c => c.FrameSequences).ToArray();
            if (call.Outcome == CallOutcome.Cancelled)
                v.Add(
                    "ghost-after-cancel",
                    $"Call {call.Id} reported cancellation ({call.Error}) but {frames.Length} of its frames are on the wire"
                        + (
                            cmds.All(c => c.Complete)
                                ? ": the broker will route a message the caller believes was never sent."
                                : ", a partial command."
                        ),
                    frames,
                    [call.Id]
                );
            else if (call.Outcome == CallOutcome.Failed && evidence.Fault is null)
                v.Add(
                    "ghost-after-failure",
                    $"Call {call.Id} reported failure ({call.Error}) with no transport fault, yet its frames are on the wire.",
                    frames,
                    [call.Id]
                );
        }
        if (evidence.Fault is null)
        {
            foreach (
                var call in evidence.Calls.Where(c => c.Outcome == CallOutcome.Cancelled && c.CancelRequested == false)
            )
            {
                if (evidence.Lifecycle?.MayHaveEndedCall(call) == true)
                    continue;
                v.Add(
                    "cancelled-unasked",
                    $"Call {call.Id} (publisher {call.Publisher}, #{call.IndexInPublisher}) ended in cancellation ({call.Error}), but its "
                        + "token was never cancelled, the writer was not being disposed and the transport did not fail: the caller is told its "
                        + "publish was withdrawn at its own request. A cancellation registered by another call (say, on a pooled entry this call reused) reached it.",
                    null,
                    [call.Id]
                );
            }
        }
        if (evidence.Fault is null)
        {
            // A failure needs a cause: the transport failed, the writer was disposed, or (for a cancellation) the
            // caller asked.
            foreach (
                var call in evidence.Calls.Where(c => c.Outcome == CallOutcome.Failed && !wire.ByCall.ContainsKey(c.Id))
            )
            {
                if (evidence.Lifecycle?.MayHaveEndedCall(call) == true)
                    continue;
                if (call.CancelRequested == true)
                    v.Add(
                        "cancel-reported-as-failure",
                        $"Call {call.Id} (publisher {call.Publisher}, #{call.IndexInPublisher}) was cancelled by its caller "
                            + $"and wrote nothing, but it failed with {call.Error} instead of OperationCanceledException: a caller's catch "
                            + "(OperationCanceledException) for its own cancellation misses it and takes the withdrawn publish for a broken connection.",
                        null,
                        [call.Id]
                    );
                else
                    v.Add(
                        "failed-without-cause",
                        $"Call {call.Id} (publisher {call.Publisher}, #{call.IndexInPublisher}) failed ({call.Error}) though "
                            + "the transport never failed, the writer was not being disposed and the call's token was not cancelled: a writer that "
                            + "takes something else (say, an earlier caller's cancellation) for an output failure stops on a healthy connection.",
                        null,
                        [call.Id]
                    );
            }
        }
        if (evidence.Fault is null && evidence.Calls.Any(c => c.Outcome == CallOutcome.Cancelled))
        {
            if (evidence.TrailingPartialBytes > 0)
                v.Add(
                    "partial-frame",
                    $"After a cancellation the stream ends with {evidence.TrailingPartialBytes} bytes of an unfinished frame."
                );
            foreach (var cmd in wire.Commands.Where(c => !c.Complete))
                v.Add(
                    "partial-command",
                    $"A command on channel {cmd.Channel} (frame {cmd.FirstSequence}) is unfinished on the wire while calls were cancelled and no transport fault occurred.",
                    cmd.FrameSequences,
                    cmd.CallId is { } id ? [id] : null
                );
        }
    }
}
