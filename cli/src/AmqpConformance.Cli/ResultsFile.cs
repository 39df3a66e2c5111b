namespace AmqpConformance.Cli;

/// <summary>A file of results a command writes (<c>--json FILE</c>, <c>--junit FILE</c>): whether its path can take
/// one, checked before anything runs (<see cref="Problem"/>), and a write that leaves either the whole new file or the
/// file as it was (<see cref="WriteWhole"/>).</summary>
internal static class ResultsFile
{
    /// <summary>Why a results file could not be written to <paramref name="path"/> (it is a folder, or its folder can
    /// be neither found nor made, e.g. under a file); null when it looks writable. Makes the folder, as the write
    /// would. The write itself can still fail, and is reported then.</summary>
    public static string? Problem(string path)
    {
        try
        {
            string full = Path.GetFullPath(path);
            if (Directory.Exists(full))
                return "is a folder; name a file.";
            if (Path.GetDirectoryName(full) is { } folder)
                Directory.CreateDirectory(folder);
            return null;
        }
        catch (Exception e)
            when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            return e.Message;
        }
    }

    /// <summary>Writes <paramref name="path"/> with <paramref name="write"/>: into <c>FILE.tmp</c> beside it (its
    /// folder made when missing), flushed to disk, then moved over <c>FILE</c>. A write that fails part way (or a
    /// process that dies) leaves no half file under the name: the old file, if any, stays until the move, and a failed
    /// write's <c>FILE.tmp</c> is deleted.</summary>
    /// <exception cref="IOException">The file could not be written (or <paramref name="path"/> is a
    /// folder).</exception>
    /// <exception cref="UnauthorizedAccessException">The file could not be written.</exception>
    public static void WriteWhole(string path, Action<Stream> write)
    {
        string full = Path.GetFullPath(path);
        if (Directory.Exists(full))
            throw new IOException("is a folder; name a file.");
        if (Path.GetDirectoryName(full) is { } folder)
            Directory.CreateDirectory(folder);
        string temporary = full + ".tmp";
        try
        {
            using (var stream = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None))
            {
                write(stream);
                stream.Flush(flushToDisk: true);
            }
            File.Move(temporary, full, overwrite: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Delete(temporary);
            throw;
        }
    }

    private static void Delete(string temporary)
    {
        try
        {
            File.Delete(temporary);
        }
        catch (IOException) { } // the write's own error is the one reported; a stale FILE.tmp is overwritten next time
        catch (UnauthorizedAccessException) { } // as above
    }
}
