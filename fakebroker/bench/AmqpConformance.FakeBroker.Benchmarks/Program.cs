using AmqpConformance.FakeBroker.Benchmarks;

// The fake broker's benchmarks. The default mode is broker ingest (IngestBenchmark): raw TCP clients blast pre-serialized
// basic.publish commands into a discarding loopback sink and into the fake broker; MB/s, msgs/s, fake/raw, GC pauses and
// allocation per frame, then a verdict per goal.
// Usage: dotnet run -c Release --project fakebroker/bench/AmqpConformance.FakeBroker.Benchmarks [-- --clients 1,4 --megabytes 256 --sizes 256,1048576 --rounds 3 --retain 100000 --trace-allocations]
// Other modes, each in its own file: `retention` (ended connections must not pile up); `race` (the fake broker against
// a local RabbitMQ with the same confirm-mode publisher: msg/s, MB/s and the ratio, goals >= 10x at 256 B, >= 3x at 1 MiB);
// `inmemory` (the broker's receive path alone, single-threaded over in-memory pipes: CPU and instruction counts);
// `digest` (the frame log's body digest, XXH3, against XXH64, the digest before JSON Lines format 2: GB/s).
// The command line is System.CommandLine's (BenchmarkProgram): `--help`, and `<mode> --help`, list every option; bad input
// is one line on standard error and exit code 2.
return await BenchmarkProgram.RunAsync(args, Console.Out, Console.Error);
