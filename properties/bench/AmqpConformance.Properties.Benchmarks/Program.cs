using System.Diagnostics;
using System.Globalization;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Generators;
using AmqpConformance.Properties.Running;
using FsCheck;
using FsCheck.Fluent;

// Case throughput of the writer-level runner: the same generated scenarios (fixed seed) through each reference writer,
// every invariant checked on each case. Prints cases/s per mode.
//   --cases N   scenarios per mode (default 300)
CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
int cases = args.SkipWhile(a => a != "--cases").Skip(1).Select(int.Parse).FirstOrDefault(300);
// Sizes ramp 1..100 as in an FsCheck run of 100 cases (Config.Quick), repeated.
var scenarios = Enumerable.Range(0, cases)
    .Select(i => ScenarioGenerators.Scenario.Sample(1, new Rnd(12345UL + (ulong)i, 67891UL), i % 100 + 1)[0]).ToList();
Console.WriteLine($"# writer-level case throughput: {cases} scenarios per mode, every invariant checked");
Console.WriteLine("| mode | cases | seconds | cases/s | violations |");
Console.WriteLine("|---|---:|---:|---:|---:|");
foreach (var factory in WriterModes.All)
{
    var sw = Stopwatch.StartNew();
    int violations = 0;
    foreach (var scenario in scenarios)
    {
        var result = await WriterLevelRunner.RunAsync(factory, scenario);
        violations += result.CheckAll().Sum(v => v.Violations.Count);
    }
    sw.Stop();
    Console.WriteLine($"| {factory.Name} | {scenarios.Count} | {sw.Elapsed.TotalSeconds:0.00} | {scenarios.Count / sw.Elapsed.TotalSeconds:0.0} | {violations} |");
}
