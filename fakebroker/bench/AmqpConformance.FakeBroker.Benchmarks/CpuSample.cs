using System.Diagnostics;
using System.Globalization;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// CPU time and GC state at one moment, for the race's per-measurement costs: this process's user + kernel time (the
/// publishers, and the fake broker or the sink when they run in it), the garbage collector's total pause time,
/// collections of each generation and bytes allocated so far (by all threads, exact: the runtime's estimate left out up
/// to an allocation context per thread, several KB, which at 122 messages a cell was tens of bytes per message), its
/// minor page faults (first touches of memory the kernel must map and
/// clear; null where there is no /proc), and the CPU time of RabbitMQ's Erlang VM (the first process named
/// <c>beam.smp</c> in /proc, in clock ticks of 10 ms; null where there is no /proc or no such process). Two samples
/// subtract into a <see cref="CpuCost"/>.
/// </summary>
internal readonly record struct CpuSample(
    TimeSpan Process,
    TimeSpan GcPause,
    int Gen0,
    int Gen1,
    int Gen2,
    long Allocated,
    long? MinorFaults,
    TimeSpan? Beam
)
{
    private static readonly Lazy<string?> BeamStat = new(FindBeam);

    /// <summary>Now.</summary>
    public static CpuSample Take()
    {
        using var self = System.Diagnostics.Process.GetCurrentProcess();
        return new CpuSample(
            self.TotalProcessorTime,
            GC.GetTotalPauseDuration(),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            GC.GetTotalAllocatedBytes(precise: true),
            ReadMinorFaults(),
            ReadBeam()
        );
    }

    /// <summary>What happened between <paramref name="start"/> and <paramref name="end"/>.</summary>
    public static CpuCost operator -(CpuSample end, CpuSample start) =>
        new(
            end.Process - start.Process,
            end.GcPause - start.GcPause,
            end.Gen0 - start.Gen0,
            end.Gen1 - start.Gen1,
            end.Gen2 - start.Gen2,
            end.Allocated - start.Allocated,
            end.MinorFaults is { } f && start.MinorFaults is { } g ? f - g : null,
            end.Beam is { } b && start.Beam is { } a ? b - a : null
        );

    private static long? ReadMinorFaults()
    {
        try
        {
            string stat = File.ReadAllText("/proc/self/stat");
            // Fields after the ")" closing the command name: state is field 3, minflt field 10 (1-based).
            return long.Parse(stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[7], CultureInfo.InvariantCulture);
        }
        catch (Exception e)
            when (e is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            return null;
        }
    }

    private static TimeSpan? ReadBeam()
    {
        string? path = BeamStat.Value;
        if (path is null)
            return null;
        try
        {
            string stat = File.ReadAllText(path);
            // Fields after the ")" closing the command name: state is field 3, utime 14, stime 15 (1-based).
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            long ticks =
                long.Parse(fields[11], CultureInfo.InvariantCulture)
                + long.Parse(fields[12], CultureInfo.InvariantCulture);
            return TimeSpan.FromMilliseconds(ticks * 10.0); // USER_HZ is 100 on Linux
        }
        catch (Exception e)
            when (e is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            return null;
        }
    }

    private static string? FindBeam()
    {
        try
        {
            foreach (string dir in Directory.EnumerateDirectories("/proc"))
            {
                if (!int.TryParse(Path.GetFileName(dir), NumberStyles.None, CultureInfo.InvariantCulture, out _))
                    continue;
                try
                {
                    if (File.ReadAllText(Path.Combine(dir, "comm")).Trim() == "beam.smp")
                        return Path.Combine(dir, "stat");
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    // A process that ended meanwhile, or one we may not look at.
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // No /proc.
        }
        return null;
    }
}
