using System.Globalization;
using System.Text;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.Properties.Scenarios;

/// <summary>
/// One generated test case: concurrent publishers, each with a list of publishes, on a channel layout, under a
/// negotiated frame_max, over a transport with a <see cref="FaultPlan"/>; either free-running (every publisher on its
/// own task, all released at once) or driven step by step by a <see cref="Script"/>. Immutable; <see cref="ToString"/>
/// is the compact description printed in failure reports.
/// </summary>
/// <param name="FrameMax">The negotiated frame_max (0 = unlimited).</param>
/// <param name="Layout">How publishers map onto channels.</param>
/// <param name="Publishers">Each publisher's publishes, in the order it makes them (a publisher awaits each call before
/// the next, except a <see cref="Pipelined"/> one).</param>
/// <param name="Faults">The transport faults, counted in bytes of the writer's output (empty: a perfect
/// transport).</param>
/// <param name="Seed">Seeds the body bytes and the output's timing noise.</param>
/// <param name="StallUntilQuiet">Stall the transport from the start until the writer stops making progress, measure
/// what it holds, then release it (the backpressure run).</param>
public sealed record Scenario(
    int FrameMax,
    ChannelLayout Layout,
    IReadOnlyList<IReadOnlyList<CallStep>> Publishers,
    FaultPlan Faults,
    int Seed = 0,
    bool StallUntilQuiet = false
)
{
    /// <summary>The queue capacity the writer is given (<see cref="WriterContext.QueueCapacity"/>); small values make
    /// queue-full paths common.</summary>
    public int QueueCapacity { get; init; } = WriterContext.DefaultQueueCapacity;

    /// <summary>Bytes the transport holds for the writer before its flushes wait (the output's pause
    /// threshold).</summary>
    public int OutputThreshold { get; init; } = 64 * 1024;

    /// <summary>The steps of a scripted run, or null for a free-running one.</summary>
    public IReadOnlyList<ScriptAction>? Script { get; init; }

    /// <summary>Whether the output's touch points (getting memory, flushing) get seeded timing noise (short yields and
    /// spins) that widen race windows inside the writer.</summary>
    public bool Noise { get; init; }

    /// <summary>Scripted runs: keep the output stalled until disposal returns, with a short
    /// <see cref="WriterContext.DrainTimeout"/>, so the writer must give up on what it holds.</summary>
    public bool StallThroughDispose { get; init; }

    /// <summary>Whether an orderly close of the transport reaches the writer as a completed flush
    /// (<c>FlushResult.IsCompleted</c>) rather than an exception (see
    /// <c>FaultyTransportOptions.OrderlyCloseAsCompletion</c>).</summary>
    public bool CloseAsCompletion { get; init; }

    /// <summary>The lowest channel number the publishers use (1 usually; sometimes 255, 256 or 2032, so that channel
    /// numbers cross 255 and reach 2047, the broker's channel_max: a writer that encodes a channel in one byte shows
    /// only there).</summary>
    public ushort ChannelBase { get; init; } = 1;

    /// <summary>Whether the publishers' channels are spread 256 apart instead of numbered one after another: the k-th
    /// channel of the layout is <see cref="ChannelBase"/> + (k mod 8) x 256 + k / 8 (1, 257, 513, ... 1793, then 2,
    /// 258, ...; at most 1794 from base 1), so channels that share their number's low byte publish in the same case. A
    /// writer that keeps per-channel state in a table indexed by the low byte (a cache of encoded frame headers, a
    /// content-in-progress flag) and checks its slot for anything but the channel shows only there: consecutive
    /// channels never share a low byte.</summary>
    public bool ChannelsSpread { get; init; }

    /// <summary>Whether the harness disposes the writer a second time (after the first disposal returned, or at the
    /// same time).</summary>
    public SecondDisposal SecondDisposal { get; init; }

    /// <summary>Free-running: publisher 0 pipelines, as "publish many, then await" code does: it makes each call as
    /// soon as the previous one's WriteAsync has returned, keeps the ValueTasks, and awaits them in order only after
    /// its last call was made. So calls overlap, dozens can be queued in the writer at once, and a ValueTask is
    /// consumed long after its call completed.</summary>
    public bool Pipelined { get; init; }

    /// <summary>Free-running: whether one publisher awaits as an <c>async</c> method does, its next call made from the
    /// previous call's completion, inline, on the thread that completed it (<see cref="ContinuingPublisher"/>), instead
    /// of on the harness's own task after a trip through the thread pool.</summary>
    public bool Continuing { get; init; }

    /// <summary>The publisher that makes each next call from the previous call's completion (<see cref="Continuing"/>):
    /// the last one with a channel of its own that does not pipeline, in a free-running case; null when there is
    /// none.</summary>
    public int? ContinuingPublisher
    {
        get
        {
            if (!Continuing || Script is not null || StallUntilQuiet)
                return null;
            for (int p = Publishers.Count - 1; p >= 0; p--)
                if (!IsSharedChannel(p) && !(Pipelined && p == 0))
                    return p;
            return null;
        }
    }

    /// <summary>Client level: whether the client's channels use publisher confirms (a publish then completes on the
    /// broker's ack).</summary>
    public bool Confirms { get; init; } = true;

    /// <summary>How many writers from the factory run the case at once, each on a connection of its own (1 usually; 2
    /// or 3 in one generated case in eight): connection k runs <see cref="ForConnection"/>(k), all of them at the same
    /// moments (the script's steps in lockstep, free-running publishers released together), and each is judged on every
    /// invariant. A writer that keeps state in a static or a cache shared by its instances (a staging buffer, a pool
    /// slice, a frame-size table) shows only here: one connection's frames carry the other's bytes or sizes, or a
    /// buffer goes back to the other connection's pool.</summary>
    public int Connections { get; init; } = 1;

    /// <summary>What connection <paramref name="connection"/> (0-based) of a case with <see cref="Connections"/> runs:
    /// connection 0 this case; another the same calls, script and faults, with bodies of its own (another
    /// <see cref="Seed"/>) and a larger frame_max (4096 more per connection; unlimited stays unlimited), so that bytes or
    /// frame sizes one writer takes from another are wrong on the wire, not equal by chance. A larger frame_max keeps
    /// every content header that fit this case's frames fitting.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="connection"/> is not below
    /// <see cref="Connections"/>.</exception>
    public Scenario ForConnection(int connection)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(connection);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(connection, Math.Max(1, Connections));
        if (connection == 0)
            return this;
        return this with
        {
            Seed = (int)((Seed + 104_729L * connection) % 1_000_001),
            FrameMax = FrameMax == 0 ? 0 : FrameMax + 4096 * connection,
        };
    }

    /// <summary>Total number of publishes.</summary>
    public int CallCount => Publishers.Sum(p => p.Count);

    /// <summary>The channel publisher <paramref name="publisher"/> uses under <see cref="Layout"/>.</summary>
    public ushort ChannelOf(int publisher)
    {
        int k = Layout switch
        {
            ChannelLayout.SharedChannel => 0,
            ChannelLayout.Mixed => publisher % 2 == 0 ? 0 : publisher,
            _ => publisher,
        };
        return (ushort)(ChannelBase + (ChannelsSpread ? k % 8 * 256 + k / 8 : k));
    }

    /// <summary>Whether publisher <paramref name="publisher"/>'s channel is shared with another publisher.</summary>
    public bool IsSharedChannel(int publisher) =>
        Layout == ChannelLayout.SharedChannel || (Layout == ChannelLayout.Mixed && publisher % 2 == 0);

    /// <summary>Compact and readable: "frame_max=4096 own seed=7 queue=2 [p0: 0, 4089 cancel:before | p1: 1] script:
    /// hold call:p0 ... faults: none".</summary>
    public override string ToString()
    {
        var sb = new StringBuilder();
        sb.Append(
            CultureInfo.InvariantCulture,
            $"frame_max={FrameMax} {Layout switch { ChannelLayout.SharedChannel => "shared", ChannelLayout.Mixed => "mixed", _ => "own" }} seed={Seed}"
        );
        if (QueueCapacity != WriterContext.DefaultQueueCapacity)
            sb.Append(CultureInfo.InvariantCulture, $" queue={QueueCapacity}");
        if (OutputThreshold != 64 * 1024)
            sb.Append(CultureInfo.InvariantCulture, $" threshold={OutputThreshold}");
        if (Noise)
            sb.Append(" noise");
        if (StallUntilQuiet)
            sb.Append(" stalled");
        if (StallThroughDispose)
            sb.Append(" stall-through-dispose");
        if (!Confirms)
            sb.Append(" confirms-off");
        if (CloseAsCompletion)
            sb.Append(" close-as-completion");
        if (Pipelined)
            sb.Append(" pipelined");
        if (ContinuingPublisher is { } continuing)
            sb.Append(CultureInfo.InvariantCulture, $" continuing:p{continuing}");
        if (ChannelBase != 1)
            sb.Append(CultureInfo.InvariantCulture, $" channels-from={ChannelBase}");
        if (Connections > 1)
            sb.Append(CultureInfo.InvariantCulture, $" connections={Connections}");
        if (ChannelsSpread)
            sb.Append(" channels-spread");
        if (SecondDisposal != SecondDisposal.None)
            sb.Append(
                SecondDisposal == SecondDisposal.Concurrent ? " dispose-twice:concurrent" : " dispose-twice:after"
            );
        sb.Append(" [");
        for (int p = 0; p < Publishers.Count; p++)
        {
            if (p > 0)
                sb.Append(" | ");
            sb.Append(CultureInfo.InvariantCulture, $"p{p}: ").Append(string.Join(", ", Publishers[p]));
        }
        sb.Append(']');
        if (Script is not null)
            sb.Append(" script: ").Append(string.Join(' ', Script));
        sb.Append(" faults: ").Append(Faults.IsEmpty ? "none" : Faults.ToJson());
        return sb.ToString();
    }
}
