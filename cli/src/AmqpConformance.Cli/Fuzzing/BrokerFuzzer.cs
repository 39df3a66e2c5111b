using System.Diagnostics;
using System.IO.Pipelines;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Properties;
using AmqpConformance.Protocol.Recording;
using AmqpConformance.Protocol.Transport;

namespace AmqpConformance.Cli.Fuzzing;

/// <summary>
/// Fuzzes the fake broker in process: each case is one connection served over in-memory pipes
/// (<see cref="FakeAmqpBroker.Serve"/>), fed a mutated session (<see cref="AmqpSessionGenerator"/>,
/// <see cref="SessionMutator"/>) in random-sized writes, then end of stream, while the broker's output is drained.
/// Cases alternate between a strict and a RabbitMQ-profile broker (those asking for frame_max 0 go to a third that
/// offers it) and run <see cref="FuzzBudget.Parallel"/> at a time.
/// </summary>
/// <remarks>Failures: an "internal-error" finding (the broker's own failure, answered with 541) is a crash; a
/// connection that has not ended <see cref="FuzzBudget.HangBound"/> after its case started writing, or whose writes
/// block that long, is a hang (then aborted). Everything else (any close code, a dropped transport) is an outcome,
/// counted.</remarks>
internal static class BrokerFuzzer
{
    public static async Task<FuzzReport> RunAsync(
        FuzzBudget budget,
        UnhandledExceptionMonitor monitor,
        CancellationToken cancellationToken
    )
    {
        var report = new FuzzReport
        {
            Target = "broker",
            Seed = budget.Seed,
            Unit = "frames",
        };
        var options = new FakeAmqpBrokerOptions
        {
            HeartbeatSeconds = 0,
            CloseTimeout = TimeSpan.FromMilliseconds(200),
            HandshakeTimeout = TimeSpan.FromSeconds(5),
            KeepPublished = false,
        };
        // Strict and RabbitMQ profiles offering RabbitMQ's frame_max, and a strict one offering 0 (unlimited) for the
        // sessions that ask for it (the others refuse a tune-ok of 0).
        FakeAmqpBroker[] brokers =
        [
            FakeAmqpBroker.CreateWithoutListener(options),
            FakeAmqpBroker.CreateWithoutListener(options with { Strictness = Strictness.RabbitMq }),
            FakeAmqpBroker.CreateWithoutListener(options with { FrameMax = 0 }),
        ];
        report.HeapBefore = GC.GetTotalMemory(forceFullCollection: true);
        report.RssBefore = Environment.WorkingSet;
        await using var memory = new MemorySampler();
        var watch = Stopwatch.StartNew();
        long nextCase = 0,
            sent = 0;
        var gate = new object();
        await Task.WhenAll(
                Enumerable
                    .Range(0, budget.Parallel)
                    .Select(_ =>
                        Task.Run(
                            async () =>
                            {
                                while (!cancellationToken.IsCancellationRequested && watch.Elapsed < budget.Duration)
                                {
                                    long index;
                                    int seed;
                                    Random random;
                                    List<byte[]> frames;
                                    int frameMax;
                                    // Cases are taken in order until the frame budget is met, so a seed and a budget
                                    // always give the same cases, whatever the parallelism.
                                    lock (gate)
                                    {
                                        if (sent >= budget.Units)
                                            break;
                                        index = nextCase++;
                                        seed = budget.CaseSeed(index);
                                        random = new Random(seed);
                                        (frames, frameMax) = AmqpSessionGenerator.Generate(
                                            random,
                                            index.ToString(System.Globalization.CultureInfo.InvariantCulture)
                                        );
                                        sent += frames.Count - 1;
                                    }
                                    (byte[] bytes, string mutation) = SessionMutator.Mutate(frames, random);
                                    FakeAmqpBroker broker = frameMax == 0 ? brokers[2] : brokers[index % 2];
                                    await RunCaseAsync(
                                            broker,
                                            bytes,
                                            random,
                                            budget.HangBound,
                                            report,
                                            $"case {index} (seed {budget.Seed}, case seed {seed}, {broker.Options.Strictness} broker offering frame_max {broker.Options.FrameMax}; {mutation})"
                                        )
                                        .ConfigureAwait(false);
                                }
                            },
                            CancellationToken.None
                        )
                    )
            )
            .ConfigureAwait(false);
        report.Elapsed = watch.Elapsed;
        lock (gate)
            (report.Sent, report.Cases) = (sent, nextCase);

        foreach (FakeAmqpBroker broker in brokers)
        {
            Task dispose = broker.DisposeAsync().AsTask();
            if (
                await Task.WhenAny(dispose, Task.Delay(budget.HangBound, CancellationToken.None)).ConfigureAwait(false)
                != dispose
            )
                report.Add(
                    report.Hangs,
                    $"disposing the {broker.Options.Strictness} broker did not finish within {budget.HangBound.TotalSeconds:0} s"
                );
        }
        foreach (string seen in monitor.Flush())
            report.Add(report.Unhandled, seen);
        report.RssPeak = memory.Peak;
        report.HeapAfter = GC.GetTotalMemory(forceFullCollection: true);
        report.RssAfter = Environment.WorkingSet;
        return report;
    }

    private static async Task RunCaseAsync(
        FakeAmqpBroker broker,
        byte[] bytes,
        Random random,
        TimeSpan bound,
        FuzzReport report,
        string name
    )
    {
        var (client, server) = DuplexPipe.CreatePair();
        BrokerConnection connection = broker.Serve(server);
        using var timeout = new CancellationTokenSource(bound);
        Task drain = DrainAsync(client.Input, timeout.Token);
        string? hang = null;
        try
        {
            // Random-sized writes, so frames straddle the pipe's segments the way a socket's reads cut them.
            for (int at = 0; at < bytes.Length; )
            {
                int n = Math.Min(bytes.Length - at, random.Next(4) == 0 ? random.Next(1, 16) : random.Next(1, 70_000));
                FlushResult flushed = await client
                    .Output.WriteAsync(bytes.AsMemory(at, n), timeout.Token)
                    .ConfigureAwait(false);
                at += n;
                if (flushed.IsCompleted)
                    break; // the broker stopped reading: the connection is over
            }
            await client.Output.CompleteAsync().ConfigureAwait(false);
            await connection.Completion.WaitAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (timeout.IsCancellationRequested)
        {
            hang = connection.Completion.IsCompleted ? "its output was never completed" : "it did not end";
        }
        if (hang is not null)
        {
            report.Add(
                report.Hangs,
                $"{name}: {hang} within {bound.TotalSeconds:0} s (close info: {connection.CloseInfo?.ToString() ?? "none"})"
            );
            try
            {
                await connection.AbortAsync().WaitAsync(bound, CancellationToken.None).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                report.Add(report.Hangs, $"{name}: it did not end even when aborted");
            }
        }
        try
        {
            await drain.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        { /* reported as a hang above */
        }
        await client.Output.CompleteAsync().ConfigureAwait(false);

        foreach (ProtocolFinding finding in connection.Findings)
            if (finding.Rule == ConnectionSummary.InternalErrorRule)
                report.Add(report.Crashes, $"{name}: {finding.Message}");
        ConnectionCloseInfo? close = connection.CloseInfo;
        report.Count(
            close is null ? "no close info"
            : close.ReplyCode == 0 ? close.Initiator.ToString().ToLowerInvariant() + " without close"
            : $"{close.Initiator.ToString().ToLowerInvariant()} {close.ReplyCode}"
        );
    }

    private static async Task DrainAsync(PipeReader input, CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            input.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted || result.IsCanceled)
                break;
        }
        await input.CompleteAsync().ConfigureAwait(false);
    }
}
