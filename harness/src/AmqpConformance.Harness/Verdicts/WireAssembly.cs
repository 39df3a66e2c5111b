using System.Buffers.Binary;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Harness.Verdicts;

/// <summary>
/// The received frames regrouped into the calls' commands the way a broker would (per channel: a basic.publish's
/// method, header, body frames up to the declared size; a call's basic.cancel on its own), plus what did not fit.
/// Shared by the checkers so they agree on what is on the wire.
/// </summary>
public sealed class WireAssembly
{
    private WireAssembly(
        IReadOnlyList<FrameRecord> frames,
        List<AssembledCommand> commands,
        List<AssemblyAnomaly> anomalies
    )
    {
        Frames = frames;
        Commands = commands;
        Anomalies = anomalies;
        BySequence = frames.ToDictionary(f => f.Sequence);
        ByCall = commands
            .Where(c => c.CallId is not null)
            .GroupBy(c => c.CallId!.Value)
            .ToDictionary(g => g.Key, g => (IReadOnlyList<AssembledCommand>)[.. g]);
        var position = new Dictionary<long, int>(frames.Count);
        for (int i = 0; i < frames.Count; i++)
            position[frames[i].Sequence] = i;
        Position = position;
        var heartbeats = new List<int>();
        for (int i = 0; i < frames.Count; i++)
            if (frames[i].Type == FrameType.Heartbeat)
                heartbeats.Add(i);
        HeartbeatPositions = heartbeats;
    }

    /// <summary>Received frames in wire order.</summary>
    public IReadOnlyList<FrameRecord> Frames { get; }

    /// <summary>Frames by sequence.</summary>
    public IReadOnlyDictionary<long, FrameRecord> BySequence { get; }

    /// <summary>Index of each sequence within <see cref="Frames"/> (received direction only).</summary>
    public IReadOnlyDictionary<long, int> Position { get; }

    /// <summary>Every basic.publish seen, and every basic.cancel naming a call (<see cref="CallCorrelation"/>), in wire
    /// order of the method frame.</summary>
    public IReadOnlyList<AssembledCommand> Commands { get; }

    /// <summary>The commands each call id produced on the wire (normally one; zero if lost; more if
    /// duplicated).</summary>
    public IReadOnlyDictionary<int, IReadOnlyList<AssembledCommand>> ByCall { get; }

    /// <summary>The positions within <see cref="Frames"/> of the heartbeat frames (type 8), in wire order. A heartbeat
    /// names no call, so it is no <see cref="AssembledCommand"/>: the order invariant matches heartbeat calls to these
    /// by count and order (<see cref="OrderChecker"/>).</summary>
    public IReadOnlyList<int> HeartbeatPositions { get; }

    /// <summary>Frames that did not fit the per-channel rule.</summary>
    public IReadOnlyList<AssemblyAnomaly> Anomalies { get; }

    /// <summary>The first command of call <paramref name="callId"/> on the wire, or null.</summary>
    public AssembledCommand? FirstOf(int callId) => ByCall.TryGetValue(callId, out var list) ? list[0] : null;

    /// <summary>Reassembles the received frames of <paramref name="evidence"/>.</summary>
    public static WireAssembly From(ConformanceEvidence evidence)
    {
        ArgumentNullException.ThrowIfNull(evidence);
        return From([.. evidence.Received]);
    }

    /// <summary>Reassembles <paramref name="frames"/> (all of one direction, in wire order).</summary>
    public static WireAssembly From(IReadOnlyList<FrameRecord> frames)
    {
        ArgumentNullException.ThrowIfNull(frames);
        var commands = new List<AssembledCommand>();
        var anomalies = new List<AssemblyAnomaly>();
        var open = new Dictionary<ushort, AssembledCommand>();
        foreach (var f in frames)
        {
            switch (f.Type)
            {
                case FrameType.Method:
                {
                    if (open.Remove(f.Channel, out var cut))
                        anomalies.Add(new("method-during-content", f.Sequence, f.Channel, cut.CallId));
                    if (IsMethod(f, 60, 40))
                    {
                        string? key = f.Payload is { } p ? CallCorrelation.RoutingKeyOfPublish(p.Span) : null;
                        var cmd = new AssembledCommand(CallCorrelation.CallIdFrom(key), f.Channel, f.Sequence);
                        commands.Add(cmd);
                        open[f.Channel] = cmd;
                    }
                    else if (f.Payload is { } p && CallCorrelation.CallIdOfCommandWithoutContent(p.Span) is { } callId)
                        commands.Add(new AssembledCommand(callId, f.Channel, f.Sequence, hasContent: false));
                    break;
                }
                case FrameType.Header:
                {
                    if (!open.TryGetValue(f.Channel, out var cmd) || cmd.HeaderSequence is not null)
                    {
                        anomalies.Add(new("orphan-header", f.Sequence, f.Channel, null));
                        break;
                    }
                    if (
                        f.Payload is { Length: >= 2 }
                        && f.ClassId != AmqpConstants.BasicClassId
                        && ReadClassId(f) != AmqpConstants.BasicClassId
                    )
                        anomalies.Add(new("header-not-basic", f.Sequence, f.Channel, cmd.CallId));
                    cmd.HeaderSequence = f.Sequence;
                    cmd.FrameSequences.Add(f.Sequence);
                    cmd.DeclaredBodySize = f.DeclaredBodySize ?? ReadDeclaredSize(f);
                    if (cmd.DeclaredBodySize is null)
                    {
                        // A header the recorder could not read (say, refused as too large): the wire-format invariant
                        // reports the frame itself; the command's shape cannot be judged.
                        cmd.HeaderUndecodable = true;
                        open.Remove(f.Channel);
                    }
                    else if (cmd.DeclaredBodySize == 0)
                        open.Remove(f.Channel);
                    break;
                }
                case FrameType.Body:
                {
                    if (!open.TryGetValue(f.Channel, out var cmd) || cmd.HeaderSequence is null)
                    {
                        anomalies.Add(new("orphan-body", f.Sequence, f.Channel, null));
                        break;
                    }
                    cmd.BodySequences.Add(f.Sequence);
                    cmd.FrameSequences.Add(f.Sequence);
                    cmd.BodyBytes += f.Size;
                    if (cmd.BodyBytes > cmd.DeclaredBodySize)
                        anomalies.Add(new("body-exceeds-declared", f.Sequence, f.Channel, cmd.CallId));
                    if (cmd.BodyBytes >= cmd.DeclaredBodySize)
                        open.Remove(f.Channel);
                    break;
                }
            }
        }
        return new WireAssembly(frames, commands, anomalies);
    }

    private static bool IsMethod(FrameRecord f, ushort classId, ushort methodId)
    {
        if (f.ClassId != 0 || f.MethodId != 0)
            return f.ClassId == classId && f.MethodId == methodId;
        return f.Payload is { Length: >= 4 } p
            && BinaryPrimitives.ReadUInt16BigEndian(p.Span) == classId
            && BinaryPrimitives.ReadUInt16BigEndian(p.Span[2..]) == methodId;
    }

    private static ushort ReadClassId(FrameRecord f) =>
        f.Payload is { Length: >= 2 } p ? BinaryPrimitives.ReadUInt16BigEndian(p.Span) : (ushort)0;

    private static long? ReadDeclaredSize(FrameRecord f) =>
        f.Payload is { Length: >= 12 } p ? (long)BinaryPrimitives.ReadUInt64BigEndian(p.Span[4..]) : null;
}
