namespace AmqpConformance.Harness.Reports;

/// <summary>One exception the harness caught and did not rethrow.</summary>
/// <param name="At">When it was recorded.</param>
/// <param name="Where">What the harness was doing (a short phrase: "closing the connection: waiting for the read
/// loop").</param>
/// <param name="Type">The exception's type name.</param>
/// <param name="Message">The exception's message.</param>
public sealed record SwallowedException(DateTimeOffset At, string Where, string Type, string Message)
{
    /// <inheritdoc />
    public override string ToString() => $"{At:HH:mm:ss.fff} {Where}: {Type}: {Message}";
}

/// <summary>The repository's policy for exceptions caught and not rethrown. An empty catch is allowed only where
/// nothing can be lost, and says why on its line (a layout test keeps that so); any other exception the harness sets
/// aside (a bounded wait that timed out while closing, a transport that failed while being torn down) is recorded here,
/// process-wide, and every failure report lists the latest ones (<see cref="ConformanceArtifacts.Write"/>), so what was
/// swallowed can still explain a verdict. Thread-safe; keeps the latest <see cref="Capacity"/>.</summary>
public static class SwallowedExceptions
{
    /// <summary>How many recorded exceptions are kept.</summary>
    public const int Capacity = 64;

    private static readonly Queue<SwallowedException> Latest = new();
    private static long _count;

    /// <summary>How many have been recorded in this process.</summary>
    public static long Count => Interlocked.Read(ref _count);

    /// <summary>Records <paramref name="exception"/>, caught while <paramref name="where"/>, and not
    /// rethrown.</summary>
    public static void Record(string where, Exception exception)
    {
        ArgumentNullException.ThrowIfNull(where);
        ArgumentNullException.ThrowIfNull(exception);
        var entry = new SwallowedException(DateTimeOffset.UtcNow, where, exception.GetType().Name, exception.Message);
        lock (Latest)
        {
            if (Latest.Count == Capacity)
                Latest.Dequeue();
            Latest.Enqueue(entry);
        }
        Interlocked.Increment(ref _count);
    }

    /// <summary>The latest recorded exceptions, oldest first, at most <paramref name="most"/>.</summary>
    public static IReadOnlyList<SwallowedException> Recent(int most = Capacity)
    {
        lock (Latest)
            return [.. Latest.Skip(Math.Max(0, Latest.Count - most))];
    }
}
