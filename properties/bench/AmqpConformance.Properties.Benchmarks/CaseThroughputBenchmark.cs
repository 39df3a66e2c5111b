using System.Diagnostics;
using System.Globalization;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

namespace AmqpConformance.Properties.Benchmarks;

/// <summary>What the benchmark measures, from its command line (<see cref="BenchmarkProgram"/>).</summary>
/// <param name="Cases">Scenarios per mode (--cases).</param>
/// <param name="Warmup">Scenarios first run through every mode, unmeasured (--warmup).</param>
/// <param name="Factories">The reference writers measured, in <see cref="WriterModes.All"/>'s order (--writer).</param>
/// <param name="Profile">The scenarios' generation profile (--profile).</param>
/// <param name="RunOptions">Every case's WriterRunOptions (--fault-reaction-wait, --grace-window,
/// --grace-wait).</param>
internal sealed record CaseThroughputOptions(
    int Cases,
    int Warmup,
    IReadOnlyList<FrameWriterFactory> Factories,
    ScenarioProfile Profile,
    WriterRunOptions RunOptions
);

/// <summary>Case throughput of the writer-level runner: the same generated scenarios (fixed seed, sizes ramping 1..100
/// as in an FsCheck run) through each reference writer, every invariant checked on each case; cases/s per mode and
/// where the time goes, then the same by kind of scenario. Exits 1 when a reference writer violated an
/// invariant.</summary>
internal static class CaseThroughputBenchmark
{
    public static async Task<int> RunAsync(CaseThroughputOptions options)
    {
        (
            int cases,
            int warmup,
            IReadOnlyList<FrameWriterFactory> factories,
            ScenarioProfile profile,
            WriterRunOptions runOptions
        ) = options;
        CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
        var generation = Stopwatch.StartNew();
        var scenarios = Enumerable
            .Range(0, cases)
            .Select(i =>
                ScenarioGenerators.For(profile).Sample(1, new Rnd(12345UL + (ulong)i, 67891UL), i % 100 + 1)[0]
            )
            .ToList();
        generation.Stop();
        bool tiered = AppContext.TryGetSwitch("System.Runtime.TieredCompilation", out bool on) ? on : true;
        Console.WriteLine(
            $"# writer-level case throughput: {cases} scenarios per mode ({profile.Name} profile, {scenarios.Count(s => s.Script is not null)} scripted), every invariant checked; tiered compilation {(tiered ? "on" : "off")}"
        );
        Console.WriteLine($"generation: {generation.Elapsed.TotalMilliseconds / cases:0.00} ms per scenario");
        if (warmup > 0)
        {
            var warm = CaseMeter.Start();
            foreach (var factory in factories)
            foreach (var scenario in scenarios.Take(warmup))
                (await WriterLevelRunner.RunAsync(factory, scenario, runOptions)).CheckAll();
            var w = warm.Stop(1);
            Console.WriteLine(
                $"warm-up (not in the table): the first {Math.Min(warmup, cases)} scenarios through each mode, {w.Wall.TotalSeconds:0.00} s, of which JIT {w.JitMsPerCase / 1000:0.00} s of compiling"
            );
        }
        Console.WriteLine(
            "| mode | cases/s | open ms | drive ms | finish ms | evidence ms | check ms | skipped ms | grace waits | grace ms | CPU ms | JIT ms | GC pause ms | alloc KB | gen0/1/2 | violations |"
        );
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        var byKind = new List<string>();
        var found = new List<string>();
        foreach (var factory in factories)
        {
            var meter = CaseMeter.Start();
            var kinds = new SortedDictionary<string, (int Cases, double Ms)>(StringComparer.Ordinal);
            int violations = 0;
            double open = 0,
                drive = 0,
                finish = 0,
                evidence = 0,
                check = 0,
                skipped = 0,
                graceWaited = 0;
            int graceWaits = 0;
            foreach (var scenario in scenarios)
            {
                long c0 = Stopwatch.GetTimestamp();
                var result = await WriterLevelRunner.RunAsync(factory, scenario, runOptions);
                foreach (var verdict in result.CheckAll())
                foreach (var violation in verdict.Violations)
                {
                    violations++;
                    found.Add(
                        $"{factory.Name}: {verdict.Invariant}/{violation.Rule}: {violation.Message} | scenario: {scenario}"
                    );
                }
                double ms = Stopwatch.GetElapsedTime(c0).TotalMilliseconds;
                if (result.Phases is { } p)
                {
                    open += p.Open.TotalMilliseconds;
                    drive += p.Drive.TotalMilliseconds;
                    finish += p.Finish.TotalMilliseconds;
                    evidence += p.Evidence.TotalMilliseconds;
                    skipped += p.Skipped.TotalMilliseconds;
                    graceWaits += p.FaultGraceWaits;
                    graceWaited += p.FaultGraceWaited.TotalMilliseconds;
                    check +=
                        ms
                        - p.Open.TotalMilliseconds
                        - p.Drive.TotalMilliseconds
                        - p.Finish.TotalMilliseconds
                        - p.Evidence.TotalMilliseconds;
                }
                var k = kinds.GetValueOrDefault(KindOf(scenario));
                kinds[KindOf(scenario)] = (k.Cases + 1, k.Ms + ms);
            }
            var m = meter.Stop(scenarios.Count);
            int n = scenarios.Count;
            Console.WriteLine(
                $"| {factory.Name} | {n / m.Wall.TotalSeconds:0.0} | {open / n:0.00} | {drive / n:0.00} | {finish / n:0.00} | {evidence / n:0.00} | {check / n:0.00} | {skipped / n:0.00} | {graceWaits} | {graceWaited:0} "
                    + $"| {m.CpuMsPerCase:0.00} | {m.JitMsPerCase:0.00} | {m.GcPauseMsPerCase:0.00} | {m.AllocatedKbPerCase:0} | {m.Collections} | {violations} |"
            );
            foreach (var (kind, (count, ms)) in kinds)
                byKind.Add(
                    $"| {factory.Name} | {kind} | {count} | {ms / count:0.00} | {ms / m.Wall.TotalMilliseconds:P0} |"
                );
        }
        Console.WriteLine();
        Console.WriteLine(
            "(CPU, JIT and GC pause are the process's, per case: JIT counts the time the runtime spent compiling, on any thread.)"
        );
        Console.WriteLine($"(timers armed in the process after the last case: {Timer.ActiveCount:N0})");
        Console.WriteLine();
        Console.WriteLine("| mode | kind of scenario | cases | ms per case | share of the mode's time |");
        Console.WriteLine("|---|---|---:|---:|---:|");
        foreach (var row in byKind)
            Console.WriteLine(row);
        if (found.Count > 0)
        {
            Console.WriteLine();
            Console.WriteLine("Violations (a reference writer should have none):");
            foreach (var line in found)
                Console.WriteLine("  " + line);
        }
        return found.Count > 0 ? 1 : 0;
    }

    private static string KindOf(Scenario s) =>
        s.Script is not null
            ? (s.StallThroughDispose ? "scripted, stalled through disposal" : "scripted")
            : (s.StallUntilQuiet ? "free-running, transport stalled" : "free-running");
}
