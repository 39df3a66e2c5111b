using System.Collections.Concurrent;

namespace AmqpConformance.Properties;

/// <summary>What one property check reads from, and adds to, <see cref="ShrunkFailures"/> for the writer it checks. A
/// check on one worker writes through at once. The workers of a check on several
/// (<see cref="PropertyRunOptions.Parallel"/>) keep what they add to themselves (<c>deferred</c>), reading the
/// process's record and their own, until the check knows which worker's failure is the run's: only that worker's are
/// made the process's (<see cref="Commit"/>), so the other workers' failures, at cases a run on one worker never
/// reaches, change nothing a later property or a shrink reads.</summary>
/// <param name="identity">The writer (<see cref="Harness.Writers.FrameWriterFactory.Identity"/>).</param>
/// <param name="deferred">Whether to keep additions until <see cref="Commit"/>.</param>
internal sealed class ShrinkNotes(object identity, bool deferred)
{
    private readonly ConcurrentDictionary<string, bool> _broken = new();
    private (string Invariant, string Counterexample)? _shrunk;

    /// <summary>The real-time rules the writer has broken (<see cref="ShrunkFailures.ProvenRules"/>), this worker's
    /// included.</summary>
    public IReadOnlySet<string> ProvenRules()
    {
        var rules = ShrunkFailures.ProvenRules(identity).ToHashSet();
        rules.UnionWith(_broken.Keys);
        return rules;
    }

    /// <summary><see cref="ShrunkFailures.NoteBroken"/>, kept until <see cref="Commit"/> when deferred.</summary>
    public void NoteBroken(IEnumerable<string> rules)
    {
        if (!deferred)
        {
            ShrunkFailures.NoteBroken(identity, rules);
            return;
        }
        foreach (string rule in rules.Where(ShrunkFailures.RealTimeRules.Contains))
            _broken[rule] = true;
    }

    /// <summary><see cref="ShrunkFailures.Add"/>, kept until <see cref="Commit"/> when deferred.</summary>
    public void Add(string invariant, string counterexample)
    {
        if (deferred)
            _shrunk ??= (invariant, counterexample);
        else
            ShrunkFailures.Add(identity, invariant, counterexample);
    }

    /// <summary>Makes what this worker kept the process's.</summary>
    public void Commit()
    {
        ShrunkFailures.NoteBroken(identity, _broken.Keys);
        if (_shrunk is var (invariant, counterexample))
            ShrunkFailures.Add(identity, invariant, counterexample);
    }
}
