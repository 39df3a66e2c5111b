using System.Diagnostics;
using System.Globalization;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using FsCheck;
using FsCheck.Fluent;

// Case throughput of the writer-level runner: the same generated scenarios (fixed seed, sizes ramping 1..100 as in an FsCheck
// run) through each reference writer, every invariant checked on each case. Prints cases/s per mode and where the time goes:
// generation, opening a case (transport, broker connection, handshake, writer), driving the calls, finishing (visibility,
// disposal, ending the connection), collecting evidence, checking, and the case-clock time skipped instead of waited (a fault's
// grace period).
//   --cases N       scenarios per mode (default 300)
//   --profile NAME  an invariant's generation profile, "mixed" (default) or "legacy-free" (free-running cases only, the
//                   pre-rework mix: no scripts, default queue and threshold), to compare with the runner before scripts existed
CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
int cases = args.SkipWhile(a => a != "--cases").Skip(1).Select(int.Parse).FirstOrDefault(300);
string profileName = args.SkipWhile(a => a != "--profile").Skip(1).FirstOrDefault() ?? "mixed";
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
Console.WriteLine($"# writer-level case throughput: {cases} scenarios per mode ({profile.Name} profile, {scenarios.Count(s => s.Script is not null)} scripted), every invariant checked");
Console.WriteLine($"generation: {generation.Elapsed.TotalMilliseconds / cases:0.00} ms per scenario");
Console.WriteLine("| mode | cases/s | open ms | drive ms | finish ms | evidence ms | check ms | skipped ms | violations |");
Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
foreach (var factory in WriterModes.All)
{
    var sw = Stopwatch.StartNew();
    int violations = 0;
    double open = 0, drive = 0, finish = 0, evidence = 0, check = 0, skipped = 0;
    foreach (var scenario in scenarios)
    {
        var result = await WriterLevelRunner.RunAsync(factory, scenario);
        long c0 = Stopwatch.GetTimestamp();
        violations += result.CheckAll().Sum(v => v.Violations.Count);
        check += Stopwatch.GetElapsedTime(c0).TotalMilliseconds;
        if (result.Phases is { } p)
        {
            open += p.Open.TotalMilliseconds;
            drive += p.Drive.TotalMilliseconds;
            finish += p.Finish.TotalMilliseconds;
            evidence += p.Evidence.TotalMilliseconds;
            skipped += p.Skipped.TotalMilliseconds;
        }
    }
    sw.Stop();
    int n = scenarios.Count;
    Console.WriteLine($"| {factory.Name} | {n / sw.Elapsed.TotalSeconds:0.0} | {open / n:0.00} | {drive / n:0.00} | {finish / n:0.00} | {evidence / n:0.00} | {check / n:0.00} | {skipped / n:0.00} | {violations} |");
}
