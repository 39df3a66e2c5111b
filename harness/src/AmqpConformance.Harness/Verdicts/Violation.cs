namespace AmqpConformance.Harness.Verdicts;

/// <summary>One breach of an invariant: enough to point at the frames and calls on a timeline.</summary>
/// <param name="Invariant">The invariant's name (see <see cref="InvariantNames"/>).</param>
/// <param name="Rule">A stable short name for what exactly broke, such as "frames-not-contiguous".</param>
/// <param name="Message">A sentence a person can act on.</param>
/// <param name="Frames">The <see cref="Protocol.Recording.FrameRecord.Sequence"/> numbers of the offending frames (may
/// be empty).</param>
/// <param name="Calls">The <see cref="CallRecord.Id"/>s of the calls involved (may be empty).</param>
public sealed record Violation(
    string Invariant,
    string Rule,
    string Message,
    IReadOnlyList<long> Frames,
    IReadOnlyList<int> Calls
)
{
    /// <summary>A diagnosis attached after judging (by <see cref="Judgement.Of"/>): a sentence naming an earlier call on
    /// the same channel that failed or was cancelled and likely explains this violation (say, a cancelled publish whose
    /// frames still went out, behind a confirm-tag mismatch). A hint, not a verdict; null when nothing explains
    /// it.</summary>
    public string? Cause { get; init; }

    /// <inheritdoc />
    public override string ToString()
    {
        string frames =
            Frames.Count == 0
                ? ""
                : $" frames [{string.Join(",", Frames.Take(12))}{(Frames.Count > 12 ? ",..." : "")}]";
        string calls =
            Calls.Count == 0 ? "" : $" calls [{string.Join(",", Calls.Take(12))}{(Calls.Count > 12 ? ",..." : "")}]";
        string cause = Cause is null ? "" : $" Likely cause: {Cause}";
        return $"{Invariant}/{Rule}: {Message}{frames}{calls}{cause}";
    }
}
