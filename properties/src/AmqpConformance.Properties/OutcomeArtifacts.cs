using AmqpConformance.Harness.Reports;

namespace AmqpConformance.Properties;

/// <summary>Writes a failing <see cref="PropertyOutcome"/>'s artifact folder (frames.jsonl, wire.pcap, timeline.html,
/// summary.txt).</summary>
public static class OutcomeArtifacts
{
    /// <summary>Writes the artifacts of <paramref name="outcome"/> under
    /// <c>&lt;root&gt;/&lt;suite&gt;/&lt;invariant&gt;/</c> and returns the outcome with
    /// <see cref="PropertyOutcome.ArtifactFolder"/> set. Returns it unchanged when it holds or has no run to show.
    /// Never throws for I/O trouble: the failure message matters more than its attachments, so the error goes into the
    /// summary.</summary>
    /// <param name="outcome">The checked property.</param>
    /// <param name="suite">The suite (or CLI mode) name: the first folder level.</param>
    /// <param name="root">The reports root; <see cref="ConformanceArtifacts.DefaultRoot"/> when null.</param>
    /// <param name="replayHint">How to replay, appended to the replay line.</param>
    public static PropertyOutcome Write(
        PropertyOutcome outcome,
        string suite,
        string? root = null,
        string? replayHint = null
    )
    {
        ArgumentNullException.ThrowIfNull(outcome);
        ArgumentNullException.ThrowIfNull(suite);
        return WriteTo(outcome, ConformanceArtifacts.FolderFor(suite, outcome.Invariant, root), replayHint);
    }

    /// <summary>Writes the artifacts of <paramref name="outcome"/> into the folder the run's options name
    /// (<see cref="PropertyRunOptions.ReportFolder"/>, where a crash report of the same run goes), its replay line
    /// followed by the hint they make (<see cref="ReplayHintFor"/>): the folder and the replay line are named once, by
    /// whoever made the options. Returns the outcome unchanged when it holds, has no run to show, or the options name
    /// no folder.</summary>
    public static PropertyOutcome Write(PropertyOutcome outcome, PropertyRunOptions options)
    {
        ArgumentNullException.ThrowIfNull(outcome);
        ArgumentNullException.ThrowIfNull(options);
        return options.ReportFolder is { } folder ? WriteTo(outcome, folder, ReplayHintFor(outcome, options)) : outcome;
    }

    /// <summary>How to replay <paramref name="outcome"/>'s failure, as the run's options say
    /// (<see cref="PropertyRunOptions.ReplayHint"/>); null when it has no replay token or the options no
    /// hint.</summary>
    public static string? ReplayHintFor(PropertyOutcome outcome, PropertyRunOptions options)
    {
        ArgumentNullException.ThrowIfNull(outcome);
        ArgumentNullException.ThrowIfNull(options);
        return outcome.Replay is { } token ? options.ReplayHint?.Invoke(token) : null;
    }

    private static PropertyOutcome WriteTo(PropertyOutcome outcome, string folder, string? replayHint)
    {
        if (outcome.Holds || outcome.Run is null)
            return outcome;
        try
        {
            var withFolder = outcome with { ArtifactFolder = Path.GetFullPath(folder) };
            ConformanceArtifacts.Write(
                folder,
                $"{outcome.Subject} violates {outcome.Invariant}",
                withFolder.Describe(replayHint),
                outcome.Run.Judgement,
                outcome.Run.Log,
                outcome.Verdict is null ? [] : [outcome.Verdict]
            );
            return withFolder;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return outcome with { ArtifactFolder = $"(could not write {folder}: {ex.Message})" };
        }
    }

    /// <summary>Writes a crash report (<see cref="CasesInFlight.ReportCrash"/>) as <c>summary.txt</c> into
    /// <paramref name="folder"/> (created), where a failure's summary goes; the other artifacts need the case's end,
    /// which a crash never reaches. Returns the file's path, or why it could not be written. Never throws.</summary>
    internal static string WriteCrashSummary(string folder, string report)
    {
        try
        {
            string full = Path.GetFullPath(folder);
            Directory.CreateDirectory(full);
            string file = Path.Combine(full, "summary.txt");
            // Whole or not at all: the runtime ends the process right after, and a file cut off half-way would say less
            // than none.
            string partial = file + ".partial";
            File.WriteAllText(partial, report + Environment.NewLine);
            File.Move(partial, file, overwrite: true);
            return file;
        }
        catch (Exception ex)
            when (ex is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return $"(could not write {folder}: {ex.Message})";
        }
    }
}
