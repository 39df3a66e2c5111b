using System.Globalization;

namespace AmqpConformance.Properties;

/// <summary>One of <see cref="Count"/> deterministic slices of a run's cases: shard <see cref="Number"/> (from 1) runs
/// the generated cases whose index (from 0) leaves <c>Number - 1</c> when divided by <see cref="Count"/>, and passes
/// the others untried. With one seed (<see cref="PropertyRunOptions.Seed"/>) every shard generates the same cases as an
/// unsharded run, so the shards of a run together run exactly its cases, each once; <c>amqp-conformance merge</c>
/// combines their results. Written <c>K/N</c>, as <c>--shard</c> and <c>AMQP_CONFORMANCE_SHARD</c> take it.</summary>
/// <param name="Number">Which shard, from 1 to <paramref name="Count"/>.</param>
/// <param name="Count">How many shards the run is cut into (at least 1).</param>
public sealed record CaseShard(int Number, int Count)
{
    /// <summary>The environment variable a suite reads its shard from (<c>K/N</c>), with
    /// <see cref="PropertyRunOptions.SeedEnvironmentVariable"/>.</summary>
    public const string EnvironmentVariable = "AMQP_CONFORMANCE_SHARD";

    /// <summary>Which shard, from 1 to <see cref="Count"/>.</summary>
    public int Number { get; } =
        Number >= 1 && Number <= Count
            ? Number
            : throw new ArgumentOutOfRangeException(
                nameof(Number),
                Number,
                $"A shard's number is from 1 to its count ({Count})."
            );

    /// <summary>How many shards the run is cut into.</summary>
    public int Count { get; } =
        Count >= 1
            ? Count
            : throw new ArgumentOutOfRangeException(nameof(Count), Count, "A run is cut into at least one shard.");

    /// <summary>Whether generated case <paramref name="caseIndex"/> (from 0) is this shard's.</summary>
    public bool Includes(int caseIndex) => caseIndex % Count == Number - 1;

    /// <summary>The index (from 0), in the whole run, of this shard's <paramref name="casesRun"/>-th case (from 1):
    /// <c>(casesRun - 1) * Count + Number - 1</c>. A shard stops at its own first failure, so this is where, in the
    /// run, a shard that failed after <paramref name="casesRun"/> cases failed
    /// (<see cref="ShardMerge.FailingCase"/>).</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="casesRun"/> is less than 1.</exception>
    public int RunCaseIndex(int casesRun)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(casesRun, 1);
        return (casesRun - 1) * Count + Number - 1;
    }

    /// <summary>How many of this shard's cases have an index (from 0) of at most <paramref name="runCaseIndex"/>: the
    /// cases this shard, run alone, runs up to and including a failure at that index (the inverse of
    /// <see cref="RunCaseIndex"/> for this shard's own cases), or its whole case count for a run of
    /// <c>runCaseIndex + 1</c> cases.</summary>
    public int CasesThrough(int runCaseIndex) =>
        runCaseIndex < Number - 1 ? 0 : (runCaseIndex - (Number - 1)) / Count + 1;

    /// <summary>This shard cut into <paramref name="parts"/> shards of the run, which together run exactly its cases:
    /// part p (from 1) is shard <c>Number + (p - 1) * Count</c> of <c>Count * parts</c>, the cases whose index leaves
    /// <c>Number - 1</c> divided by <see cref="Count"/> and <c>p - 1</c> divided by <paramref name="parts"/> after
    /// that. <c>run --seed S --shard K/N --parallel P</c> runs these in P processes.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="parts"/> is less than 1.</exception>
    public IReadOnlyList<CaseShard> Split(int parts)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(parts, 1);
        return [.. Enumerable.Range(1, parts).Select(p => new CaseShard(Number + (p - 1) * Count, Count * parts))];
    }

    /// <summary>Reads <c>K/N</c> (1 ≤ K ≤ N).</summary>
    /// <exception cref="FormatException">Anything else, with what was expected.</exception>
    public static CaseShard Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        string[] parts = text.Trim().Split('/');
        if (
            parts.Length == 2
            && int.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out int number)
            && int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out int count)
            && count >= 1
            && number >= 1
            && number <= count
        )
            return new CaseShard(number, count);
        throw new FormatException($"\"{text}\" is not a shard: expected K/N with 1 <= K <= N, for example 2/4.");
    }

    /// <inheritdoc />
    public override string ToString() => $"{Number}/{Count}";
}
