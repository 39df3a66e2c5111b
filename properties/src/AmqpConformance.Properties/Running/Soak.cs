using System.Diagnostics;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Properties.Running;

/// <summary>One soak's running state (<see cref="SoakRunner"/>): its rounds, the calls completed and the samples kept.
/// Each round is the same probe: <see cref="SoakOptions.Publishers"/> concurrent publishers (at most the writer's
/// queue capacity) whose calls must complete, and whose frames must reach the broker, within
/// <see cref="SoakOptions.RoundTimeout"/>.</summary>
internal sealed class Soak(
    SoakOptions options,
    IFrameWriter writer,
    TrackingArrayPool pool,
    FaultyTransport transport,
    BrokerConnection connection
)
{
    private readonly byte[] _body = Enumerable.Range(0, options.BodyLength).Select(i => (byte)i).ToArray();
    private readonly List<SoakSample> _samples = [];
    private long _calls;

    public IReadOnlyList<SoakSample> Samples => _samples;

    public int Rounds { get; private set; }

    public long Calls => Interlocked.Read(ref _calls);

    /// <summary>Runs one round and samples the idle writer; returns the violation that ends the soak, if any.</summary>
    public async Task<SoakViolation?> RoundAsync(TimeSpan elapsed, CancellationToken cancellationToken)
    {
        int round = ++Rounds;
        int calls = options.Publishers * options.CallsPerPublisher;
        int framesPerCall = 2 + FrameFormat.BodyFrameCount(options.BodyLength, options.FrameMax);
        long expectedFrames = connection.Log.NextSequence + (long)calls * framesPerCall;
        long callsBefore = Calls;
        var roundTime = Stopwatch.StartNew();
        if (options.StallEvery > 0 && round % options.StallEvery == 0)
        {
            transport.UpstreamFaults.Add(new StallFault(0));
            _ = Task.Delay(options.StallFor, CancellationToken.None)
                .ContinueWith(_ => transport.Release(FaultDirection.Upstream), TaskScheduler.Default);
        }
        var publishers = Enumerable
            .Range(0, options.Publishers)
            .Select(p => Task.Run(() => PublishAsync(round, p, cancellationToken), CancellationToken.None))
            .ToArray();
        try
        {
            await Task.WhenAll(publishers).WaitAsync(options.RoundTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            return new SoakViolation(
                "soak/stopped-completing",
                $"round {round}: {Calls - callsBefore} of its {calls} calls completed within {options.RoundTimeout.TotalSeconds:0.#} s, after {callsBefore} calls had completed in earlier rounds ({publishers.Count(t => !t.IsCompleted)} publishers still waiting)"
            );
        }
        catch (Exception e) when (e is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            return new SoakViolation(
                "soak/call-failed",
                $"round {round}: a call failed on a healthy connection after {Calls} calls: {e.GetType().Name}: {e.Message}"
            );
        }
        while (connection.Log.NextSequence < expectedFrames)
        {
            if (roundTime.Elapsed > options.RoundTimeout)
                return new SoakViolation(
                    "soak/stopped-completing",
                    $"round {round}: every call completed, but the broker received {expectedFrames - connection.Log.NextSequence} frames fewer than they make within {options.RoundTimeout.TotalSeconds:0.#} s"
                );
            await Task.Delay(1, cancellationToken).ConfigureAwait(false);
        }
        double roundMs = roundTime.Elapsed.TotalMilliseconds;
        var outstanding = pool.Outstanding;
        Add(
            new SoakSample(
                round,
                elapsed + roundTime.Elapsed,
                Calls,
                outstanding.Count,
                outstanding.Sum(r => (long)r.Size),
                transport.UpstreamBacklogBytes,
                roundMs
            )
        );
        return null;
    }

    private async Task PublishAsync(int round, int publisher, CancellationToken cancellationToken)
    {
        for (int i = 0; i < options.CallsPerPublisher; i++)
        {
            var command = CommandBuilder.BuildPublish(
                pool,
                options.FrameMax,
                1,
                "",
                $"soak-{round}-{publisher}-{i}",
                false,
                null,
                _body
            );
            await writer.WriteAsync(command, cancellationToken).ConfigureAwait(false);
            Interlocked.Increment(ref _calls);
        }
    }

    /// <summary>Keeps the sample, and at most <see cref="SoakOptions.MaxSamples"/>: past that, every other one goes
    /// (the latest stays).</summary>
    private void Add(SoakSample sample)
    {
        _samples.Add(sample);
        if (_samples.Count <= Math.Max(options.MaxSamples, SoakJudge.MinimumSamples))
            return;
        var kept = _samples.Where((_, i) => i % 2 == 0 || i == _samples.Count - 1).ToList();
        _samples.Clear();
        _samples.AddRange(kept);
    }
}
