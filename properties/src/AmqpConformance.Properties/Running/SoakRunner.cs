using System.Diagnostics;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Faults;
using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// A soak: one writer from a <see cref="FrameWriterFactory"/> over one long in-process connection (the writer-level
/// pieces: a <see cref="FaultyTransport"/> into a <see cref="FakeAmqpBroker"/>, the writer renting from a
/// <see cref="TrackingArrayPool"/>), driven in rounds of concurrent publishes for <see cref="SoakOptions.Duration"/>,
/// the transport stalled now and then and released. After each round, once the writer is idle (every call completed
/// and the broker received every frame), it samples what a leak would grow (<see cref="SoakSample"/>); each round is
/// also the probe that calls within the writer's queue still complete. Findings: <c>soak/stopped-completing</c> (a
/// round's calls did not complete within <see cref="SoakOptions.RoundTimeout"/>, or the frames never arrived),
/// <c>soak/call-failed</c>, and <see cref="SoakJudge"/>'s <c>soak/resource-growth</c>.
/// </summary>
public static class SoakRunner
{
    /// <summary>Runs the soak. <paramref name="progress"/>, if given, is called after every round with its sample.</summary>
    /// <exception cref="InvalidOperationException">The connection could not be opened or the factory made no
    /// writer.</exception>
    public static async Task<SoakResult> RunAsync(
        FrameWriterFactory factory,
        SoakOptions options,
        Action<SoakSample>? progress = null,
        CancellationToken cancellationToken = default
    )
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentOutOfRangeException.ThrowIfLessThan(options.Publishers, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(options.Publishers, options.QueueCapacity);
        ArgumentOutOfRangeException.ThrowIfLessThan(options.CallsPerPublisher, 1);
        ThreadPoolHeadroom.Ensure(); // its publishers are pool tasks: none should wait for the pool to grow
        var started = Stopwatch.StartNew();
        await using var transport = FaultyTransport.Create(
            FaultPlan.Empty,
            new FaultyTransportOptions { TimeMode = FaultTimeMode.Virtual }
        );
        await using var broker = FakeAmqpBroker.CreateWithoutListener(
            new FakeAmqpBrokerOptions
            {
                FrameMax = 0,
                HeartbeatSeconds = 0,
                KeepPublished = false,
                HandshakeTimeout = Timeout.InfiniteTimeSpan,
                FrameLog = new FrameLogOptions { RecordSent = false, MaxRetainedFrames = 10_000 },
            }
        );
        var connection = broker.Serve(transport.BrokerSide);
        using (var opening = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
        {
            opening.CancelAfter(TimeSpan.FromSeconds(30));
            var client = new HarnessClientOptions { FrameMax = options.FrameMax, HeartbeatSeconds = 0 };
            await ClientHandshake.OpenAsync(transport.ClientSide, client, opening.Token).ConfigureAwait(false);
            await ClientHandshake
                .OpenChannelsAsync(transport.ClientSide, [1], confirms: false, opening.Token)
                .ConfigureAwait(false);
        }
        var drain = Task.Run(() => WriterCase.DrainAsync(transport.ClientSide.Input), CancellationToken.None);
        var pool = new TrackingArrayPool();
        var context = new WriterContext(transport.ClientSide.Output, pool, options.FrameMax)
        {
            QueueCapacity = options.QueueCapacity,
            // disposal comes after an idle round (nothing to drain) or after calls stopped completing (nothing will
            // drain): a long drain timeout would only make a caught writer's report late
            DrainTimeout = TimeSpan.FromSeconds(1),
        };
        var writer = factory.CreateWriter(context);
        var soak = new Soak(options, writer, pool, transport, connection);
        var violations = new List<SoakViolation>();
        try
        {
            while (started.Elapsed < options.Duration && !cancellationToken.IsCancellationRequested)
            {
                if (await soak.RoundAsync(started.Elapsed, cancellationToken).ConfigureAwait(false) is { } broken)
                {
                    violations.Add(broken);
                    break;
                }
                progress?.Invoke(soak.Samples[^1]);
            }
        }
        finally
        {
            await DisposeBoundedAsync(writer, factory.DisposeTimeout).ConfigureAwait(false);
            transport.Release();
        }
        violations.AddRange(SoakJudge.Growth(soak.Samples));
        await transport.DisposeAsync().ConfigureAwait(false);
        await drain.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        return new SoakResult(
            factory.Name,
            options,
            soak.Samples,
            violations,
            soak.Rounds,
            soak.Calls,
            started.Elapsed
        );
    }

    private static async Task DisposeBoundedAsync(IFrameWriter writer, TimeSpan bound)
    {
        try
        {
            await writer.DisposeAsync().AsTask().WaitAsync(bound).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // the soak's verdict is about the run; a writer stuck or failing in disposal (as a leaked budget leaves
            // it) is noted and left behind
            SwallowedExceptions.Record("disposing the writer after a soak", e);
        }
    }
}
