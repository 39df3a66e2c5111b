using System.Diagnostics;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties.Scenarios;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// Runs a <see cref="Scenario"/> against a writer from any <see cref="FrameWriterFactory"/>, in process: the writer writes
/// into a <see cref="FaultyTransport"/> applying the scenario's fault plan, and the bytes that get through are split into
/// frames and logged. The harness owns the writer's pool (a <see cref="TrackingArrayPool"/>) and the callers' pool, so it
/// sees every rental, and it poisons each caller's body as soon as the call completes (or its owner is disposed).
/// </summary>
/// <remarks>Never throws for anything the writer does: hangs, exceptions and misuse all end up in the evidence. Each publisher
/// runs on its own task, all released at once; publishers sharing a channel take turns on it, as a client's channel lock does.</remarks>
public static class WriterLevelRunner
{
    /// <summary>Wire offsets count as if the 8-byte protocol header preceded the writer's output, as on a real connection.</summary>
    private const int ProtocolHeaderLength = 8;

    /// <summary>Runs <paramref name="scenario"/> against a fresh writer from <paramref name="factory"/>.</summary>
    public static async Task<RunResult> RunAsync(FrameWriterFactory factory, Scenario scenario, WriterRunOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(scenario);
        options ??= WriterRunOptions.Default;
        var log = new FrameLog(1, new FrameLogOptions { CaptureBodies = true, RecordSent = false });
        var writerPool = new TrackingArrayPool();
        var callerPool = new TrackingArrayPool();
        var plan = scenario.StallUntilQuiet ? scenario.Faults.With(new StallFault(0)) : scenario.Faults;
        var transportOptions = new FaultyTransportOptions { TimeMode = FaultTimeMode.Virtual };
        await using var transport = FaultyTransport.Create(plan, transportOptions);
        var output = new ObservedOutput(transport.ClientSide.Output, () => log.Elapsed);
        var recorder = new WireRecorder(transport.BrokerSide.Input, log, ProtocolHeaderLength);
        using var stopRecorder = new CancellationTokenSource();
        var recording = Task.Run(() => recorder.RunAsync(stopRecorder.Token), CancellationToken.None);

        var context = new WriterContext(output, writerPool, scenario.FrameMax);
        if (scenario.StallUntilQuiet) context = context with { QueueCapacity = options.StalledQueueCapacity };
        var traces = new List<CallTrace>();
        IFrameWriter? writer = null;
        bool disposed = true;
        BackpressureSample? backpressure = null;
        try
        {
            writer = factory.CreateWriter(context);
            var channelLocks = Enumerable.Range(0, scenario.Publishers.Count).Where(scenario.IsSharedChannel)
                .Select(scenario.ChannelOf).Distinct().ToDictionary(c => c, _ => new SemaphoreSlim(1, 1));
            var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            int nextId = 0;
            var publisherTasks = new List<Task>();
            for (int p = 0; p < scenario.Publishers.Count; p++)
            {
                var steps = scenario.Publishers[p];
                var myTraces = new List<CallTrace>();
                for (int i = 0; i < steps.Count; i++)
                    myTraces.Add(new CallTrace
                    {
                        Id = nextId++, Publisher = p, IndexInPublisher = i, Channel = scenario.ChannelOf(p),
                        ExpectedBody = BodyBytes(scenario.Seed, nextId - 1, steps[i].BodyLength),
                    });
                traces.AddRange(myTraces);
                var channelLock = channelLocks.GetValueOrDefault(scenario.ChannelOf(p));
                var w = writer;
                publisherTasks.Add(Task.Run(async () =>
                {
                    await start.Task.ConfigureAwait(false);
                    for (int i = 0; i < steps.Count; i++)
                    {
                        if (!await PublishAsync(w, context, output, callerPool, log, scenario, steps[i], myTraces[i], channelLock, options).ConfigureAwait(false))
                            break; // hung: this publisher cannot go on
                    }
                }, CancellationToken.None));
            }

            var all = Task.WhenAll(publisherTasks);
            start.SetResult();
            if (scenario.StallUntilQuiet)
            {
                backpressure = await MeasureWhileStalledAsync(all, scenario, writerPool, transport, output, traces, transportOptions, options).ConfigureAwait(false);
                transport.Release();
            }
            var limit = options.CallTimeout * Math.Max(1, scenario.PublishCount) + TimeSpan.FromSeconds(1);
            await Task.WhenAny(all, Task.Delay(limit, cancellationToken)).ConfigureAwait(false);
        }
        catch (Exception ex) when (writer is null)
        {
            throw new InvalidOperationException($"The factory \"{factory.Name}\" could not create a writer: {ex.Message}", ex);
        }
        finally
        {
            if (writer is not null)
            {
                try
                {
                    var dispose = writer.DisposeAsync().AsTask();
                    disposed = await Task.WhenAny(dispose, Task.Delay(options.DisposeTimeout, CancellationToken.None)).ConfigureAwait(false) == dispose;
                }
                catch (Exception)
                {
                    // a writer whose DisposeAsync throws synchronously: what it left behind is still judged
                }
            }
            try { await output.CompleteAsync().ConfigureAwait(false); } catch (InvalidOperationException) { }
            var recorded = recording;
            if (await Task.WhenAny(recorded, Task.Delay(TimeSpan.FromSeconds(2), CancellationToken.None)).ConfigureAwait(false) != recorded)
                await stopRecorder.CancelAsync().ConfigureAwait(false);
        }

        var ledger = writerPool.Verify();
        var callerLedger = callerPool.Verify();
        var issues = ledger.Findings.Select(f => new PoolIssue((PoolIssueKind)(int)f.Kind, f.Message))
            .Concat(callerLedger.Findings.Where(f => f.Kind == PoolFindingKind.WriteAfterReturn)
                .Select(f => new PoolIssue(PoolIssueKind.WriteAfterReturn, "caller's body array: " + f.Message)))
            .ToList();
        TransportFaultRecord? fault = null;
        if (transport.Termination is { } t || output.FaultObservedAt is not null)
        {
            string description = transport.Termination?.Reason ?? "the output reported completion";
            fault = new TransportFaultRecord(output.FaultObservedAt ?? log.Elapsed, description, output.FaultObservedAt, output.BytesWrittenAfterFault);
        }
        var evidence = new ConformanceEvidence
        {
            Frames = log.Snapshot(),
            Calls = [.. traces.Where(t => t.Attempted).Select(t => t.Freeze())],
            FrameMax = scenario.FrameMax,
            Pool = new PoolLedgerSummary(ledger.Rents, ledger.Returns, issues),
            PoolObserved = true,
            Findings = [.. log.Findings(), .. recorder.Findings],
            TrailingPartialBytes = recorder.TrailingBytes,
            Fault = fault,
            WriterDisposed = disposed,
            Backpressure = backpressure,
            OutputWireOffset = ProtocolHeaderLength,
        };
        return new RunResult(scenario, evidence, log);
    }

    /// <summary>The deterministic body bytes of call <paramref name="callId"/>.</summary>
    internal static byte[] BodyBytes(int seed, int callId, int length)
    {
        var bytes = GC.AllocateUninitializedArray<byte>(length);
        new Random(HashCode.Combine(seed, callId)).NextBytes(bytes);
        // Keep the poison byte out of real bodies so poison on the wire is unambiguous.
        for (int i = 0; i < bytes.Length; i++) if (bytes[i] == PublishCall.PoisonByte) bytes[i] = 0x5A;
        return bytes;
    }

    private static async Task<bool> PublishAsync(IFrameWriter writer, WriterContext context, ObservedOutput output, TrackingArrayPool callerPool,
        FrameLog log, Scenario scenario, PublishStep step, CallTrace trace, SemaphoreSlim? channelLock, WriterRunOptions options)
    {
        if (channelLock is not null) await channelLock.WaitAsync().ConfigureAwait(false);
        try
        {
            byte[] array = callerPool.Rent(step.SliceOffset + step.BodyLength + step.SliceSlack);
            array.AsSpan().Fill(0x11);
            var body = array.AsMemory(step.SliceOffset, step.BodyLength);
            trace.ExpectedBody.CopyTo(body);
            TrackedBodyOwner? owner = step.WithBodyOwner ? new TrackedBodyOwner(() => output.BytesWritten, () => callerPool.Return(array)) : null;
            trace.Owner = owner;
            var command = PublishCommandBuilder.Build(context.Pool, scenario.FrameMax, trace.Channel, trace.Id, step.HeaderBytes, body, owner);
            using var cts = new CancellationTokenSource();
            if (step.Cancel == CancelKind.Before) cts.Cancel();
            if (step.Cancel == CancelKind.OnFlush) output.CancelOnFlush(cts, step.CancelAfterFlushes);
            trace.Started = log.Elapsed;
            trace.Attempted = true;
            Task call;
            try
            {
                call = writer.WriteAsync(command, cts.Token).AsTask();
            }
            catch (Exception ex)
            {
                call = Task.FromException(ex);
            }
            if (step.Cancel == CancelKind.Racing) _ = Task.Run(() => CancelQuietly(cts));
            if (await Task.WhenAny(call, Task.Delay(options.CallTimeout)).ConfigureAwait(false) != call)
                return false; // hung: leave the body alone, the writer may still be using it
            trace.Complete(log.Elapsed, call.Exception?.InnerException ?? (call.IsCanceled ? new OperationCanceledException() : null));
            output.Disarm(cts);
            if (owner is null)
            {
                callerPool.Return(array); // poisons the array, and the next publish may reuse it
                trace.Poisoned = true;
            }
            return true;
        }
        finally
        {
            channelLock?.Release();
        }
    }

    /// <summary>Cancels unless the call already completed and its source was disposed.</summary>
    internal static void CancelQuietly(CancellationTokenSource source)
    {
        try { source.Cancel(); }
        catch (ObjectDisposedException) { }
    }

    private static async Task<BackpressureSample> MeasureWhileStalledAsync(Task publishers, Scenario scenario, TrackingArrayPool pool,
        FaultyTransport transport, ObservedOutput output, List<CallTrace> traces, FaultyTransportOptions transportOptions, WriterRunOptions options)
    {
        long peak = 0;
        long lastProgress = -1;
        var quietSince = Stopwatch.StartNew();
        var deadline = Stopwatch.StartNew();
        while (!publishers.IsCompleted && deadline.Elapsed < options.CallTimeout)
        {
            long held = pool.Outstanding.Sum(r => (long)r.Size) + transport.UpstreamBacklogBytes + (output.CanGetUnflushedBytes ? output.UnflushedBytes : 0);
            peak = Math.Max(peak, held);
            long progress = output.BytesWritten + traces.Count(t => t.Ended is not null);
            if (progress != lastProgress)
            {
                lastProgress = progress;
                quietSince.Restart();
            }
            else if (quietSince.Elapsed >= options.QuietPeriod) break;
            await Task.Delay(1).ConfigureAwait(false);
        }
        long maxCommand = scenario.Publishers.SelectMany(p => p).Select(s =>
            512L + s.HeaderBytes + Protocol.FrameFormat.BodyFramesWireLength(s.BodyLength, scenario.FrameMax)).DefaultIfEmpty(512).Max();
        int slots = options.StalledQueueCapacity + scenario.Publishers.Count;
        long bound = 2 * slots * maxCommand + 2 * transportOptions.PauseWriterThreshold + 64 * 1024;
        return new BackpressureSample(peak, bound,
            $"2 x ({options.StalledQueueCapacity} queued + {scenario.Publishers.Count} in-flight commands) x {maxCommand} bytes + 2 x the {transportOptions.PauseWriterThreshold}-byte output threshold + 64 KiB");
    }
}
