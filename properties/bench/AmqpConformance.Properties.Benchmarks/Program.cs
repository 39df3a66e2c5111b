using System.Diagnostics;
using System.Globalization;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Benchmarks;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using AmqpConformance.Properties.Scenarios;
using FsCheck;
using FsCheck.Fluent;

// Case throughput of the writer-level runner: the same generated scenarios (fixed seed, sizes ramping 1..100 as in an FsCheck
// run) through each reference writer, every invariant checked on each case. Prints cases/s per mode and where the time goes:
// generation, opening a case (transport, broker connection, handshake, writer), driving the calls, finishing (visibility,
// disposal, ending the connection), collecting evidence, checking, the case-clock time skipped instead of waited (a fault's
// grace period, a stalled writer's drain timeout), the process's CPU time, JIT time and GC per case; then the same by kind of
// scenario (free-running, scripted, transport-stalled, stalled through disposal).
//   --cases N       scenarios per mode (default 300)
//   --writer NAME   only this reference writer (Background, Inline or Coalescing); repeatable; default all three
//   --profile NAME  an invariant's generation profile, "mixed" (default) or "legacy-free" (free-running cases only, the
//                   pre-rework mix: no scripts, default queue and threshold), to compare with the runner before scripts existed
//   --fault-reaction-wait MS
//                   WriterRunOptions.FaultReactionWait for every case (default: the option's default); 0 runs cases as the
//                   harness did before that wait existed, for comparing both in one build
//   --grace-window MS
//                   WriterRunOptions.FaultGraceQuietWindow for every case (default: the option's default); 0 waits each fault
//                   grace's whole FaultGraceRealWait as the harness did before the window existed, for comparing both in one build
//   --grace-wait MS WriterRunOptions.FaultGraceRealWait for every case (default: the option's default); 0 gives a writer no real
//                   time after a fault before the clock skips the grace, to show what that wait protects against on a loaded machine
//   --warmup N      first run the first N scenarios through every selected mode, unmeasured (default 0): the process's JIT
//                   (~1 s here, with tiered compilation off) is then paid before the first measured row instead of inside it,
//                   so every row shows the steady cost per case that an FsCheck run of many cases sees; the warm-up's own
//                   wall and JIT time are printed on a line of their own
CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
var arguments = new BenchArguments(args);
int cases, warmup;
var options = WriterRunOptions.Default;
string profileName;
List<string> writers;
try
{
    cases = arguments.Number("--cases", 1, 300);
    warmup = arguments.Number("--warmup", 0, 0);
    writers = arguments.Values("--writer");
    if (arguments.Milliseconds("--fault-reaction-wait") is { } reaction) options = options with { FaultReactionWait = reaction };
    if (arguments.Milliseconds("--grace-window") is { } window) options = options with { FaultGraceQuietWindow = window };
    if (arguments.Milliseconds("--grace-wait") is { } graceWait) options = options with { FaultGraceRealWait = graceWait };
    profileName = arguments.Value("--profile") ?? "mixed";
    if (profileName is not ("mixed" or "legacy-free") && !InvariantNames.All.Contains(profileName))
        throw new BenchUsageException($"--profile {profileName}: not mixed, legacy-free or an invariant ({string.Join(", ", InvariantNames.All)})");
}
catch (BenchUsageException bad)
{
    Console.Error.WriteLine(bad.Message);
    return 2;
}
var factories = WriterModes.All.Where(f => writers.Count == 0 || writers.Contains(f.Name, StringComparer.OrdinalIgnoreCase)).ToList();
if (factories.Count == 0)
{
    Console.Error.WriteLine($"no reference writer named {string.Join(", ", writers)}; known: {string.Join(", ", WriterModes.All.Select(f => f.Name))}");
    return 2;
}
var profile = profileName switch
{
    "mixed" => ScenarioProfile.Mixed,
    "legacy-free" => ScenarioProfile.Mixed with { Name = "legacy-free", Scripted = 0, SmallQueue = 0, SmallThreshold = 0, Noise = 0, TransportStall = 0 },
    _ => ScenarioProfile.For(profileName),
};
var generation = Stopwatch.StartNew();
var scenarios = Enumerable.Range(0, cases)
    .Select(i => ScenarioGenerators.For(profile).Sample(1, new Rnd(12345UL + (ulong)i, 67891UL), i % 100 + 1)[0]).ToList();
generation.Stop();
bool tiered = AppContext.TryGetSwitch("System.Runtime.TieredCompilation", out bool on) ? on : true;
Console.WriteLine($"# writer-level case throughput: {cases} scenarios per mode ({profile.Name} profile, {scenarios.Count(s => s.Script is not null)} scripted), every invariant checked; tiered compilation {(tiered ? "on" : "off")}");
Console.WriteLine($"generation: {generation.Elapsed.TotalMilliseconds / cases:0.00} ms per scenario");
if (warmup > 0)
{
    var warm = CaseMeter.Start();
    foreach (var factory in factories)
        foreach (var scenario in scenarios.Take(warmup))
            (await WriterLevelRunner.RunAsync(factory, scenario, options)).CheckAll();
    var w = warm.Stop(1);
    Console.WriteLine($"warm-up (not in the table): the first {Math.Min(warmup, cases)} scenarios through each mode, {w.Wall.TotalSeconds:0.00} s, of which JIT {w.JitMsPerCase / 1000:0.00} s of compiling");
}
Console.WriteLine("| mode | cases/s | open ms | drive ms | finish ms | evidence ms | check ms | skipped ms | grace waits | grace ms | CPU ms | JIT ms | GC pause ms | alloc KB | gen0/1/2 | violations |");
Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
var byKind = new List<string>();
var found = new List<string>();
foreach (var factory in factories)
{
    var meter = CaseMeter.Start();
    var kinds = new SortedDictionary<string, (int Cases, double Ms)>(StringComparer.Ordinal);
    int violations = 0;
    double open = 0, drive = 0, finish = 0, evidence = 0, check = 0, skipped = 0, graceWaited = 0;
    int graceWaits = 0;
    foreach (var scenario in scenarios)
    {
        long c0 = Stopwatch.GetTimestamp();
        var result = await WriterLevelRunner.RunAsync(factory, scenario, options);
        foreach (var verdict in result.CheckAll())
            foreach (var violation in verdict.Violations)
            {
                violations++;
                found.Add($"{factory.Name}: {verdict.Invariant}/{violation.Rule}: {violation.Message} | scenario: {scenario}");
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
            check += ms - p.Open.TotalMilliseconds - p.Drive.TotalMilliseconds - p.Finish.TotalMilliseconds - p.Evidence.TotalMilliseconds;
        }
        var k = kinds.GetValueOrDefault(KindOf(scenario));
        kinds[KindOf(scenario)] = (k.Cases + 1, k.Ms + ms);
    }
    var m = meter.Stop(scenarios.Count);
    int n = scenarios.Count;
    Console.WriteLine($"| {factory.Name} | {n / m.Wall.TotalSeconds:0.0} | {open / n:0.00} | {drive / n:0.00} | {finish / n:0.00} | {evidence / n:0.00} | {check / n:0.00} | {skipped / n:0.00} | {graceWaits} | {graceWaited:0} " +
        $"| {m.CpuMsPerCase:0.00} | {m.JitMsPerCase:0.00} | {m.GcPauseMsPerCase:0.00} | {m.AllocatedKbPerCase:0} | {m.Collections} | {violations} |");
    foreach (var (kind, (count, ms)) in kinds)
        byKind.Add($"| {factory.Name} | {kind} | {count} | {ms / count:0.00} | {ms / m.Wall.TotalMilliseconds:P0} |");
}
Console.WriteLine();
Console.WriteLine("(CPU, JIT and GC pause are the process's, per case: JIT counts the time the runtime spent compiling, on any thread.)");
Console.WriteLine($"(timers armed in the process after the last case: {Timer.ActiveCount:N0})");
Console.WriteLine();
Console.WriteLine("| mode | kind of scenario | cases | ms per case | share of the mode's time |");
Console.WriteLine("|---|---|---:|---:|---:|");
foreach (var row in byKind) Console.WriteLine(row);
if (found.Count > 0)
{
    Console.WriteLine();
    Console.WriteLine("Violations (a reference writer should have none):");
    foreach (var line in found) Console.WriteLine("  " + line);
}
return found.Count > 0 ? 1 : 0;

static string KindOf(Scenario s) => s.Script is not null
    ? (s.StallThroughDispose ? "scripted, stalled through disposal" : "scripted")
    : (s.StallUntilQuiet ? "free-running, transport stalled" : "free-running");
