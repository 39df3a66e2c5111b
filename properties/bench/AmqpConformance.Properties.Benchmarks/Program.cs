using AmqpConformance.Properties.Benchmarks;

// Case throughput of the writer-level runner: the same generated scenarios (fixed seed, sizes ramping 1..100 as in an
// FsCheck run) through each reference writer, every invariant checked on each case. Prints cases/s per mode and where
// the time goes: generation, opening a case (transport, broker connection, handshake, writer), driving the calls,
// finishing (visibility, disposal, ending the connection), collecting evidence, checking, the case-clock time skipped
// instead of waited (a fault's grace period, a stalled writer's drain timeout), the process's CPU time, JIT time and GC
// per case; then the same by kind of scenario (free-running, scripted, transport-stalled, stalled through disposal).
//   --cases N       scenarios per mode (default 300)
//   --writer NAME   only this reference writer (Background, Inline or Coalescing); repeatable; default all three
//   --profile NAME  an invariant's generation profile, "mixed" (default) or "legacy-free" (free-running cases only, the
//                   pre-rework mix: no scripts, default queue and threshold), to compare with the runner before scripts
//                   existed
//   --fault-reaction-wait MS
//                   WriterRunOptions.FaultReactionWait for every case (default: the option's default); 0 runs cases as
//                   the harness did before that wait existed, for comparing both in one build
//   --grace-window MS
//                   WriterRunOptions.FaultGraceQuietWindow for every case (default: the option's default); 0 waits each
//                   fault grace's whole FaultGraceRealWait as the harness did before the window existed, for comparing
//                   both in one build
//   --grace-wait MS WriterRunOptions.FaultGraceRealWait for every case (default: the option's default); 0 gives a
//   writer no real
//                   time after a fault before the clock skips the grace, to show what that wait protects against on a
//                   loaded machine
//   --warmup N      first run the first N scenarios through every selected mode, unmeasured (default 0): the process's JIT
//                   (~1 s here, with tiered compilation off) is then paid before the first measured row instead of
//                   inside it, so every row shows the steady cost per case that an FsCheck run of many cases sees; the
//                   warm-up's own wall and JIT time are printed on a line of their own
// The command line is System.CommandLine's (BenchmarkProgram): `--help` lists the options; bad input is one line on
// standard error and exit code 2.
return await BenchmarkProgram.RunAsync(args, Console.Out, Console.Error);
