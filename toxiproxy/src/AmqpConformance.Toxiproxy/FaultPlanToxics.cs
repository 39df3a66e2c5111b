using AmqpConformance.Harness.Faults;

namespace AmqpConformance.Toxiproxy;

/// <summary>
/// Maps a <see cref="FaultPlan"/> to Toxiproxy toxics, so the plan that drives the in-process transport can
/// drive a real Toxiproxy (or the embedded proxy through its HTTP API). Toxic names are "{type}_{stream}_{index}"
/// (index in the plan). In process, <see cref="FaultProxy.ApplyPlan"/> gives the embedded proxy the plan as it is,
/// with nothing approximated.
/// </summary>
/// <remarks>What Toxiproxy cannot express is reported, not silently dropped (<see cref="Mapping.Unmapped"/>):
/// a stall has no toxic; a reset after N bytes becomes limit_data N (the bytes before stay delivered, but
/// the connection closes instead of resetting); a black hole that opens after N bytes opens at once;
/// the plan seed does not reach Toxiproxy's own random choices (slicer, jitter).</remarks>
public static class FaultPlanToxics
{
    /// <summary>The toxics for a plan and the notes on what did not map exactly.</summary>
    /// <param name="Toxics">Toxics in plan order.</param>
    /// <param name="Unmapped">One sentence per fault that was approximated or left out.</param>
    public sealed record Mapping(IReadOnlyList<ToxicConfig> Toxics, IReadOnlyList<string> Unmapped);

    /// <summary>Maps <paramref name="plan"/> (see the type's remarks for approximations).</summary>
    public static Mapping Map(FaultPlan plan)
    {
        ArgumentNullException.ThrowIfNull(plan);
        var toxics = new List<ToxicConfig>();
        var notes = new List<string>();
        for (int i = 0; i < plan.Faults.Count; i++)
        {
            Fault f = plan.Faults[i];
            string stream = ToxicStreams.Of(f.Direction);
            ToxicConfig Toxic(string type, params (string Name, long Value)[] attributes) =>
                new()
                {
                    Name = $"{type}_{stream}_{i}",
                    Type = type,
                    Stream = stream,
                    Toxicity = 1f,
                    Attributes = attributes.ToDictionary(a => a.Name, a => a.Value),
                };
            switch (f)
            {
                case LatencyFault l:
                    toxics.Add(Toxic(ToxicTypes.Latency, ("latency", l.LatencyMs), ("jitter", l.JitterMs)));
                    break;
                case BandwidthFault b:
                    toxics.Add(Toxic(ToxicTypes.Bandwidth, ("rate", b.RateKBps)));
                    break;
                case SlicerFault s:
                    toxics.Add(
                        Toxic(
                            ToxicTypes.Slicer,
                            ("average_size", s.AverageSize),
                            ("size_variation", s.SizeVariation),
                            ("delay", s.DelayMicroseconds)
                        )
                    );
                    break;
                case LimitDataFault d:
                    toxics.Add(Toxic(ToxicTypes.LimitData, ("bytes", d.Bytes)));
                    break;
                case SlowCloseFault c:
                    toxics.Add(Toxic(ToxicTypes.SlowClose, ("delay", c.DelayMs)));
                    break;
                case ResetPeerFault { AfterBytes: null } r:
                    toxics.Add(Toxic(ToxicTypes.ResetPeer, ("timeout", r.TimeoutMs)));
                    break;
                case ResetPeerFault { AfterBytes: long after } r:
                    toxics.Add(Toxic(ToxicTypes.LimitData, ("bytes", after)));
                    notes.Add(
                        $"#{i} {f}: Toxiproxy cannot reset after N bytes; mapped to limit_data {after} (close instead of reset{(r.TimeoutMs > 0 ? ", timeout ignored" : "")})."
                    );
                    break;
                case BlackHoleFault h:
                    toxics.Add(Toxic(ToxicTypes.Timeout, ("timeout", h.TimeoutMs)));
                    if (h.AfterBytes > 0)
                        notes.Add(
                            $"#{i} {f}: Toxiproxy's timeout toxic acts at once; afterBytes {h.AfterBytes} ignored."
                        );
                    break;
                case StallFault s:
                    notes.Add($"#{i} {f}: no Toxiproxy toxic stalls and resumes; left out.");
                    break;
                default:
                    notes.Add($"#{i} {f}: unknown fault kind; left out.");
                    break;
            }
        }
        if (plan.Faults.Any(f => f is SlicerFault or LatencyFault { JitterMs: > 0 }))
            notes.Add($"Seed {plan.Seed} does not reach Toxiproxy: slice sizes and jitter are its own random draws.");
        return new Mapping(toxics, notes);
    }
}
