namespace AmqpConformance.Properties;

/// <summary>
/// The one rule by which the shards of a run (<see cref="CaseShard"/>) give the verdict of the run in one piece, shared
/// by everything that combines shards: <c>amqp-conformance merge</c> and <c>run --parallel</c> (shards in files of
/// their own) and <see cref="PropertyRunOptions.Parallel"/> (shards on workers of one check). For each property, the
/// failure reported is the one of the lowest case index in the run (<see cref="FailingCase"/>): a run in one piece with
/// the same seed generates the same cases in the same order and stops at its first failure, and every case before the
/// lowest failing one passed in whichever shard ran it, so that is the case it stops at, with the same counterexample,
/// shrink and replay token. When no shard failed, the run's cases are the shards' cases added up.
/// </summary>
/// <remarks>Sound as far as each case's verdict is its own: a failure that depends on timing may show in one run and
/// not another, sharded or not.</remarks>
public static class ShardMerge
{
    /// <summary>The index (from 0), in the run in one piece, of the case at which a shard failed:
    /// <see cref="CaseShard.RunCaseIndex"/> of its <paramref name="casesRun"/> (the failing case included), or
    /// <paramref name="casesRun"/> - 1 for a run that was not sharded (<paramref name="shard"/> null).</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="casesRun"/> is less than 1.</exception>
    public static int FailingCase(CaseShard? shard, int casesRun)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(casesRun, 1);
        return shard?.RunCaseIndex(casesRun) ?? casesRun - 1;
    }

    /// <summary>The shards' failures of one property, the one the run in one piece reports first, then the others by
    /// their case index in the run (the lowest first; <see cref="FailingCase"/>). Shards of one run never share a case,
    /// so no two failures share an index.</summary>
    /// <param name="failures">One failure per shard that failed.</param>
    /// <param name="failingCase">Each failure's case index in the run (<see cref="FailingCase"/>).</param>
    public static IReadOnlyList<T> InRunOrder<T>(IEnumerable<T> failures, Func<T, int> failingCase)
    {
        ArgumentNullException.ThrowIfNull(failures);
        ArgumentNullException.ThrowIfNull(failingCase);
        return [.. failures.OrderBy(failingCase)];
    }
}
