using System.Globalization;
using System.Text;
using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Properties.Scenarios;

/// <summary>
/// One generated test case: concurrent publishers, each with a list of publishes, on a channel layout, under a negotiated
/// frame_max, over a transport with a <see cref="FaultPlan"/>. Immutable; <see cref="ToString"/> is the compact description
/// printed in failure reports.
/// </summary>
/// <param name="FrameMax">The negotiated frame_max (0 = unlimited).</param>
/// <param name="Layout">How publishers map onto channels.</param>
/// <param name="Publishers">Each publisher's publishes, in the order it makes them (a publisher awaits each call before the next).</param>
/// <param name="Faults">The transport faults (empty: a perfect transport).</param>
/// <param name="Seed">Seeds the body bytes.</param>
/// <param name="StallUntilQuiet">Stall the transport from the start until the writer stops making progress, measure the memory it
/// holds, then release it (the backpressure run).</param>
public sealed record Scenario(int FrameMax, ChannelLayout Layout, IReadOnlyList<IReadOnlyList<PublishStep>> Publishers,
    FaultPlan Faults, int Seed = 0, bool StallUntilQuiet = false)
{
    /// <summary>Total number of publishes.</summary>
    public int PublishCount => Publishers.Sum(p => p.Count);

    /// <summary>The channel publisher <paramref name="publisher"/> uses under <see cref="Layout"/>.</summary>
    public ushort ChannelOf(int publisher) => Layout switch
    {
        ChannelLayout.SharedChannel => 1,
        ChannelLayout.Mixed => publisher % 2 == 0 ? (ushort)1 : (ushort)(publisher + 1),
        _ => (ushort)(publisher + 1),
    };

    /// <summary>Whether publisher <paramref name="publisher"/>'s channel is shared with another publisher.</summary>
    public bool IsSharedChannel(int publisher) =>
        Layout == ChannelLayout.SharedChannel || (Layout == ChannelLayout.Mixed && publisher % 2 == 0);

    /// <summary>Compact and readable: "frame_max=4096 own seed=7 [p0: 0, 4089 cancel:before | p1: 1] faults: reset_peer@120".</summary>
    public override string ToString()
    {
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture, $"frame_max={FrameMax} {Layout switch { ChannelLayout.SharedChannel => "shared", ChannelLayout.Mixed => "mixed", _ => "own" }} seed={Seed}");
        if (StallUntilQuiet) sb.Append(" stalled");
        sb.Append(" [");
        for (int p = 0; p < Publishers.Count; p++)
        {
            if (p > 0) sb.Append(" | ");
            sb.Append(CultureInfo.InvariantCulture, $"p{p}: ").Append(string.Join(", ", Publishers[p]));
        }
        sb.Append(']');
        sb.Append(" faults: ").Append(Faults.IsEmpty ? "none" : Faults.ToJson());
        return sb.ToString();
    }
}
