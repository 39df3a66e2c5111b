using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Generators;

/// <summary>
/// Blocked writes in stalled client cases: the first publish of publisher 0 made large and cancelled "on a flush". The
/// proxy's stall stops reading the client's socket, so the client's socket write blocks part-way through that publish,
/// and the runner fires the cancellation then (<see cref="Clients.ClientLevelRunner"/>). A client that writes inline,
/// without a writer of its own, must then neither leave a torn frame nor send part of it twice (RabbitMQ.Client PR
/// #1912's inline writer does both: its <c>PipeWriter</c> keeps the segment the cancelled socket write had sent part of,
/// and sends all of it with the next flush). Drawn by chance, a cancellation met a write blocked mid-segment about once
/// in two thousand client cases; a stalled client case has a blocked write in one case in four (each costs the
/// stall's quiet period, 200 ms, to find the client blocked).
/// </summary>
internal static class BlockedWrites
{
    /// <summary>The body lengths of a blocked write: more than a stalled proxy's connection takes in before the
    /// client's socket write blocks (about 240 KB, the proxy keeping its client connections' buffers small), so the
    /// write blocks part-way through the command.</summary>
    public static (int Min, int Max) Body { get; } = (384 * 1024, 1024 * 1024);

    /// <summary><paramref name="publishers"/> with the first call of publisher 0 a publish of
    /// <paramref name="length"/> bytes, cancelled on a flush.</summary>
    public static List<IReadOnlyList<CallStep>> Into(IReadOnlyList<IReadOnlyList<CallStep>> publishers, int length)
    {
        ArgumentNullException.ThrowIfNull(publishers);
        var result = publishers.ToList();
        var steps = result[0].ToList();
        steps[0] = steps[0] with
        {
            BodyLength = length,
            Cancel = CancelKind.OnFlush,
            CancelAfterFlushes = 1,
            MethodOnly = false,
            ConnectionLevel = false,
            WithoutToken = false,
        };
        result[0] = steps;
        return result;
    }
}
