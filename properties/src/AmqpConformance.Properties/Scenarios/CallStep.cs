using System.Globalization;
using System.Text;

namespace AmqpConformance.Properties.Scenarios;

/// <summary>One call of a scenario: a publish, with its body (a slice of a larger pooled array) and content properties,
/// or a command without content (<paramref name="MethodOnly"/>); and when (if ever) it is cancelled.</summary>
/// <param name="BodyLength">Body length in bytes.</param>
/// <param name="SliceOffset">Where the body starts inside the caller's pooled array.</param>
/// <param name="SliceSlack">Extra bytes of that array after the body (the writer must not send them).</param>
/// <param name="HeaderBytes">Approximate size of the headers table in the content properties (0 = no headers).</param>
/// <param name="Cancel">When the call's cancellation token fires.</param>
/// <param name="CancelAfterFlushes">For <see cref="CancelKind.OnFlush"/>: which output flush after the call's start
/// cancels it (from 1); for <see cref="CancelKind.OnWrite"/>, which request for memory.</param>
/// <param name="WithBodyOwner">Whether the body is handed over with an owner the writer must dispose (PR #1913 style)
/// instead of being reusable on completion.</param>
/// <param name="MethodOnly">The call's command has no content: a single method frame (basic.cancel, nowait, naming the
/// call in its consumer tag), as a client's acks, cancels and closes are. Such a step has no body, no headers and no
/// body owner.</param>
/// <param name="ConnectionLevel">With <paramref name="MethodOnly"/>: the command goes on channel 0, as a client's
/// heartbeats, connection.close and close-ok do, whatever channel the publisher uses: a connection.update-secret naming
/// the call in its reason, which a running connection may send at any time. A writer that gives channel 0 a lane of its
/// own shows.</param>
/// <param name="WithoutToken">The call passes no cancellation token (<see cref="CancellationToken.None"/>, whose
/// <see cref="CancellationToken.CanBeCanceled"/> is false), as most publishes in client code do; only with
/// <see cref="CancelKind.None"/>. A writer with a fast path for such calls that skips the checks of its other path
/// shows.</param>
/// <param name="OpaqueBody">At writer level, the body is handed over as memory that is not an array as far as the
/// writer can tell (a <see cref="System.Buffers.MemoryManager{T}"/> whose <c>TryGetArray</c> is false, as native memory
/// is), over the same pooled array. A writer whose path for such memory differs from its array path shows. Client level
/// ignores it.</param>
/// <param name="Heartbeat">With <paramref name="MethodOnly"/>: the call's command is a heartbeat frame (type 8, channel
/// 0, an empty payload), as a client's heartbeat timer sends, whatever channel the publisher uses. It names no call, so
/// the checkers match heartbeat calls to heartbeat frames by count and order (the order invariant's heartbeat
/// rules).</param>
public sealed record CallStep(
    int BodyLength,
    int SliceOffset = 0,
    int SliceSlack = 0,
    int HeaderBytes = 0,
    CancelKind Cancel = CancelKind.None,
    int CancelAfterFlushes = 1,
    bool WithBodyOwner = false,
    bool MethodOnly = false,
    bool ConnectionLevel = false,
    bool WithoutToken = false,
    bool OpaqueBody = false,
    bool Heartbeat = false
)
{
    /// <summary>A heartbeat call (see <see cref="Heartbeat"/>), cancelled as <paramref name="cancel"/> says.</summary>
    public static CallStep ForHeartbeat(CancelKind cancel = CancelKind.None, int cancelAfterFlushes = 1) =>
        new(0, Cancel: cancel, CancelAfterFlushes: cancelAfterFlushes, MethodOnly: true, Heartbeat: true);

    /// <summary>A call without content (see <see cref="MethodOnly"/>), cancelled as <paramref name="cancel"/> says, on
    /// channel 0 when <paramref name="connectionLevel"/>.</summary>
    public static CallStep WithoutContent(
        CancelKind cancel = CancelKind.None,
        int cancelAfterFlushes = 1,
        bool connectionLevel = false
    ) =>
        new(
            0,
            Cancel: cancel,
            CancelAfterFlushes: cancelAfterFlushes,
            MethodOnly: true,
            ConnectionLevel: connectionLevel
        );

    /// <summary>A compact description such as "4088@3+5 h200 cancel:flush2 owned", "300 no-token", or "method
    /// cancel:before" for a call without content.</summary>
    public override string ToString()
    {
        var sb = new StringBuilder(
            Heartbeat ? "heartbeat"
            : MethodOnly ? (ConnectionLevel ? "method ch0" : "method")
            : BodyLength.ToString(CultureInfo.InvariantCulture)
        );
        if (SliceOffset != 0 || SliceSlack != 0)
            sb.Append(CultureInfo.InvariantCulture, $"@{SliceOffset}+{SliceSlack}");
        if (HeaderBytes > 0)
            sb.Append(CultureInfo.InvariantCulture, $" h{HeaderBytes}");
        switch (Cancel)
        {
            case CancelKind.Before:
                sb.Append(" cancel:before");
                break;
            case CancelKind.OnFlush:
                sb.Append(CultureInfo.InvariantCulture, $" cancel:flush{CancelAfterFlushes}");
                break;
            case CancelKind.OnWrite:
                sb.Append(CultureInfo.InvariantCulture, $" cancel:write{CancelAfterFlushes}");
                break;
            case CancelKind.Racing:
                sb.Append(" cancel:racing");
                break;
            case CancelKind.AfterCompletion:
                sb.Append(" cancel:after");
                break;
        }
        if (WithBodyOwner)
            sb.Append(" owned");
        if (WithoutToken)
            sb.Append(" no-token");
        if (OpaqueBody)
            sb.Append(" opaque");
        return sb.ToString();
    }
}
