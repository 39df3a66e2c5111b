using AmqpConformance.Harness.Benchmarks;

// Writer benchmarks. `bdn [BenchmarkDotNet args]` runs the throughput/allocation matrix under BenchmarkDotNet
// (see WriterBenchmarks), every argument after `bdn` handed to it as given; anything else runs the custom runner
// (WriterRunner), which also measures the PR #1912 peak-memory scenario and prints the goals.
//   --quick      short run (1 measured iteration, 32 MiB per scenario)
//   --tracking   rent from a TrackingArrayPool (ledger checked at the end) instead of ArrayPool<byte>.Shared
//   --no-peak / --no-throughput   skip a part
//   --body 256,16384  --publishers 16   restrict the throughput rows
//   --flush-cost-us 10   CPU cost per flush in the costly-flush section (0 skips it)
// The command line is System.CommandLine's (BenchmarkProgram): `--help` lists the options; bad input is one line on
// standard error and exit code 2.
return await BenchmarkProgram.RunAsync(args, Console.Out, Console.Error);
