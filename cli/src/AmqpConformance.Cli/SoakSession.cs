using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Running;

namespace AmqpConformance.Cli;

/// <summary><c>run --soak DURATION</c>: soaks each writer in turn (<see cref="SoakRunner"/>), printing progress about
/// every ten seconds, then a table of the idle-time samples over the run and the verdict.</summary>
internal static class SoakSession
{
    /// <summary>How many rows the samples table shows at most (evenly spread, the last one always).</summary>
    private const int TableRows = 12;

    /// <summary>Soaks every writer for <paramref name="duration"/>; 0 when each held, 1 on a violation, 130 when
    /// interrupted.</summary>
    public static async Task<int> RunAsync(
        IReadOnlyList<FrameWriterFactory> factories,
        TimeSpan duration,
        TextWriter output,
        CancellationToken cancellationToken
    )
    {
        bool allHold = true;
        foreach (var factory in factories)
        {
            output.WriteLine(
                $"soak {factory.Name} for {duration}: one connection, rounds of concurrent publishes, a stall every few rounds"
            );
            var options = SoakOptions.For(duration);
            var lastPrinted = TimeSpan.Zero;
            void Progress(SoakSample s)
            {
                if (s.Elapsed - lastPrinted < TimeSpan.FromSeconds(10))
                    return;
                lastPrinted = s.Elapsed;
                output.WriteLine(
                    $"  {s.Elapsed:hh\\:mm\\:ss} round {s.Round}, {s.Calls} calls, {s.OutstandingRentals} rentals ({s.BytesHeld} B) held while idle"
                );
            }
            var result = await SoakRunner.RunAsync(factory, options, Progress, cancellationToken).ConfigureAwait(false);
            WriteTable(output, result);
            if (cancellationToken.IsCancellationRequested)
                return ExitCodes.Interrupted;
            if (result.Holds)
            {
                output.WriteLine(
                    $"{factory.Name}: HOLDS over {result.Rounds} rounds, {result.Calls} calls, {result.Elapsed:hh\\:mm\\:ss}"
                );
                continue;
            }
            allHold = false;
            output.WriteLine(
                $"{factory.Name}: VIOLATED after {result.Rounds} rounds, {result.Calls} calls, {result.Elapsed:hh\\:mm\\:ss}"
            );
            foreach (var v in result.Violations)
                output.WriteLine($"  {v}");
        }
        return allHold ? 0 : 1;
    }

    private static void WriteTable(TextWriter output, SoakResult result)
    {
        var samples = result.Samples;
        if (samples.Count == 0)
            return;
        int step = Math.Max(1, (samples.Count + TableRows - 1) / TableRows);
        var rows = samples.Where((_, i) => i % step == 0 || i == samples.Count - 1);
        output.WriteLine(
            $"  {"elapsed", -9} {"round", 7} {"calls", 10} {"rentals", 8} {"bytes held", 11} {"backlog", 8} {"round ms", 9}"
        );
        foreach (var s in rows)
            output.WriteLine(
                $"  {s.Elapsed:hh\\:mm\\:ss}  {s.Round, 7} {s.Calls, 10} {s.OutstandingRentals, 8} {s.BytesHeld, 11} {s.TransportBacklog, 8} {s.RoundMs, 9:0.0}"
            );
    }
}
