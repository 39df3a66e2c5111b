using System.Collections.Concurrent;
using AmqpConformance.FakeBroker;
using AmqpConformance.Harness.Client;
using AmqpConformance.Harness.Tests.Writers.Support;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Protocol;
using static AmqpConformance.Harness.Tests.Writers.Support.WriterTestKit;

namespace AmqpConformance.Harness.Tests.Writers;

/// <summary>
/// The writer contract end to end: the harness client publishes through the writer under test to the fake broker,
/// in memory (FakeAmqpBroker.Serve over a pipe pair) and over loopback TCP; the broker's record of what arrived, its
/// strict findings, the pool ledger and the body owners are checked after each test.
/// </summary>
public abstract class WriterBrokerTests
{
    protected abstract FrameWriterFactory Factory { get; }

    public static TheoryData<string, int> TransportsAndFrameSizes =>
        new()
        {
            { BrokerSession.Memory, 0 },
            { BrokerSession.Memory, 4096 },
            { BrokerSession.Memory, 131072 },
            { BrokerSession.Tcp, 0 },
            { BrokerSession.Tcp, 4096 },
            { BrokerSession.Tcp, 131072 },
        };

    public static TheoryData<string> Transports => new() { BrokerSession.Memory, BrokerSession.Tcp };

    [Theory]
    [MemberData(nameof(TransportsAndFrameSizes))]
    public async Task Concurrent_publishers_reach_the_broker_byte_exact_and_in_order(string transport, int frameMax)
    {
        await using var session = await BrokerSession.StartAsync(transport, Factory, frameMax);
        Assert.Equal(frameMax, session.Client.FrameMax);
        var channel = await session.Client.OpenChannelAsync();
        int[] sizes = SizesFor(frameMax);
        const int publishers = 4,
            perPublisher = 15;
        var owners = new ConcurrentBag<OwnerProbe>();

        await Task.WhenAll(
                Enumerable
                    .Range(0, publishers)
                    .Select(p =>
                        Task.Run(async () =>
                        {
                            var random = new Random(p);
                            for (int s = 0; s < perPublisher; s++)
                            {
                                var owner = s % 3 == 0 ? new OwnerProbe() : null;
                                if (owner is not null)
                                    owners.Add(owner);
                                await channel
                                    .PublishAsync(
                                        "",
                                        "q",
                                        TestBodies.Create(p, s, sizes[random.Next(sizes.Length)]),
                                        bodyOwner: owner
                                    )
                                    .AsTask()
                                    .WaitAsync(TestTimeout);
                            }
                        })
                    )
            )
            .WaitAsync(TestTimeout);
        await session.CloseClientAsync();

        var published = session.Server.Published;
        Assert.Equal(publishers * perPublisher, published.Count);
        Assert.All(published, m =>
            Assert.True(TestBodies.IsIntact(m.Body.Span), "a body arrived different from the caller's bytes")
        );
        foreach (var group in published.Select(m => TestBodies.Identify(m.Body.Span)).GroupBy(id => id.Publisher))
            Assert.Equal(Enumerable.Range(0, perPublisher), group.Select(id => id.Sequence));
        AssertCleanConnection(session);
        Assert.All(owners, o => Assert.Equal(1, o.Disposals));
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task Publisher_confirms_match_the_sequence_numbers_on_the_wire(string transport)
    {
        await using var session = await BrokerSession.StartAsync(transport, Factory, 4096);
        var channels = new[]
        {
            await session.Client.OpenChannelAsync(confirms: true),
            await session.Client.OpenChannelAsync(confirms: true),
        };
        var sequences = new ConcurrentDictionary<(int, int), ulong>();

        await Task.WhenAll(
                Enumerable
                    .Range(0, 4)
                    .Select(p =>
                        Task.Run(async () =>
                        {
                            var channel = channels[p % 2];
                            for (int s = 0; s < 15; s++)
                                sequences[(p, s)] = await channel
                                    .PublishAsync("", "q", TestBodies.Create(p, s, 500 + s * 700))
                                    .AsTask()
                                    .WaitAsync(TestTimeout);
                        })
                    )
            )
            .WaitAsync(TestTimeout);
        foreach (var channel in channels)
            Assert.True(await channel.WaitForConfirmsAsync().WaitAsync(TestTimeout));
        await session.CloseClientAsync();

        foreach (var channel in channels)
        {
            Assert.Equal(30, channel.Confirmations.Count);
            Assert.All(channel.Confirmations.Values, Assert.True);
        }
        var published = session.Server.Published;
        Assert.Equal(60, published.Count);
        Assert.All(published, m => Assert.Equal(sequences[TestBodies.Identify(m.Body.Span)], m.ConfirmSequence));
        AssertCleanConnection(session);
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task A_cancelled_publish_never_reaches_the_broker(string transport)
    {
        await using var session = await BrokerSession.StartAsync(transport, Factory, 4096);
        var channel = await session.Client.OpenChannelAsync(confirms: true);
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        var outcomes = new List<(int Sequence, Exception? Error)>();
        var owners = new List<OwnerProbe>();
        for (int s = 0; s < 30; s++)
        {
            var owner = new OwnerProbe();
            owners.Add(owner);
            var token = s % 3 == 1 ? cancelled.Token : CancellationToken.None;
            outcomes.Add(
                (
                    s,
                    await Outcome(
                        channel
                            .PublishAsync(
                                "",
                                "q",
                                TestBodies.Create(0, s, 9000),
                                bodyOwner: owner,
                                cancellationToken: token
                            )
                            .AsTask()
                    )
                )
            );
        }
        Assert.True(await channel.WaitForConfirmsAsync().WaitAsync(TestTimeout));
        await session.CloseClientAsync();

        Assert.All(outcomes, o =>
            Assert.True(
                o.Sequence % 3 == 1 ? o.Error is OperationCanceledException : o.Error is null,
                $"publish {o.Sequence}: {o.Error}"
            )
        );
        var arrived = session.Server.Published.Select(m => TestBodies.Identify(m.Body.Span).Sequence).ToList();
        Assert.Equal(Enumerable.Range(0, 30).Where(s => s % 3 != 1), arrived);
        Assert.Equal(
            Enumerable.Range(1, 20).Select(i => (ulong?)i),
            session.Server.Published.Select(m => m.ConfirmSequence)
        );
        Assert.All(owners, o => Assert.Equal(1, o.Disposals));
        AssertCleanConnection(session);
    }

    [Fact]
    public async Task An_output_that_throws_fails_publishes_clearly_and_loses_no_buffer()
    {
        TestPipeWriter? output = null;
        await using var session = await BrokerSession.StartAsync(
            BrokerSession.Memory,
            Factory,
            4096,
            wrapOutput: inner => output = new TestPipeWriter(inner)
        );
        var channel = await session.Client.OpenChannelAsync();
        output!.FailOnFlush = output.Flushes + 6;
        var owners = new ConcurrentBag<OwnerProbe>();
        var errors = new ConcurrentBag<Exception>();

        await Task.WhenAll(
                Enumerable
                    .Range(0, 3)
                    .Select(p =>
                        Task.Run(async () =>
                        {
                            for (int s = 0; s < 20; s++)
                            {
                                var owner = new OwnerProbe();
                                owners.Add(owner);
                                if (
                                    await Outcome(
                                        channel
                                            .PublishAsync("", "q", TestBodies.Create(p, s, 6000), bodyOwner: owner)
                                            .AsTask()
                                    ) is
                                    { } error
                                )
                                    errors.Add(error);
                            }
                        })
                    )
            )
            .WaitAsync(TestTimeout);
        // The background writer may have accepted (queued) every call before the failure; a call after it must fail.
        errors.Add(
            await CallUntilFailureAsync(s =>
            {
                var owner = new OwnerProbe();
                owners.Add(owner);
                return new ValueTask(
                    channel.PublishAsync("", "q", TestBodies.Create(9, s, 100), bodyOwner: owner).AsTask()
                );
            })
        );
        await session.Client.DisposeAsync().AsTask().WaitAsync(TestTimeout);

        Assert.True(output.HasFailed);
        Assert.NotEmpty(errors);
        // The call that hit the failure gets the writer's exception; once the client saw it, later calls get the
        // client's, wrapping the same writer failure.
        Assert.All(errors, e =>
        {
            var writerFault =
                e as FrameWriterFaultedException
                ?? Assert.IsType<FrameWriterFaultedException>(
                    Assert.IsType<HarnessConnectionException>(e).InnerException
                );
            Assert.IsType<InjectedFault>(writerFault.InnerException);
        });
        Assert.Equal(0, output.UsesAfterFailure);
        Assert.All(owners, o => Assert.Equal(1, o.Disposals));
        session.Pool.AssertClean();
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task A_broker_that_drops_the_connection_fails_publishes_without_hanging(string transport)
    {
        await using var session = await BrokerSession.StartAsync(transport, Factory, 4096);
        var channel = await session.Client.OpenChannelAsync();
        for (int s = 0; s < 5; s++)
            await channel.PublishAsync("", "q", TestBodies.Create(0, s, 3000)).Within();
        await session.Server.AbortAsync().WaitAsync(TestTimeout);
        var owners = new List<OwnerProbe>();

        Exception? error = null;
        using (var deadline = new CancellationTokenSource(TestTimeout))
        {
            for (int s = 5; error is null && !deadline.IsCancellationRequested; s++)
            {
                var owner = new OwnerProbe();
                owners.Add(owner);
                error = await Outcome(
                    channel.PublishAsync("", "q", TestBodies.Create(0, s, 3000), bodyOwner: owner).AsTask()
                );
                if (error is null)
                    await Task.Delay(10);
            }
        }
        await session.Client.DisposeAsync().AsTask().WaitAsync(TestTimeout);

        Assert.True(error is FrameWriterFaultedException or HarnessConnectionException, $"unexpected: {error}");
        Assert.NotNull(session.Client.Fault ?? error);
        Assert.All(owners, o => Assert.Equal(1, o.Disposals));
        session.Pool.AssertClean();
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task Disposal_flushes_accepted_publishes_and_closes_cleanly(string transport)
    {
        await using var session = await BrokerSession.StartAsync(transport, Factory, 131072);
        var channel = await session.Client.OpenChannelAsync();
        var calls = Enumerable
            .Range(0, 30)
            .Select(s => channel.PublishAsync("", "q", TestBodies.Create(0, s, 20_000)).AsTask())
            .ToList();
        await Task.WhenAll(calls).WaitAsync(TestTimeout);
        await session.CloseClientAsync();

        Assert.Equal(30, session.Server.Published.Count);
        Assert.Equal(CloseInitiator.Client, session.Server.CloseInfo?.Initiator);
        Assert.Equal((ushort?)200, session.Server.CloseInfo?.ReplyCode);
        AssertCleanConnection(session);
    }

    private static void AssertCleanConnection(BrokerSession session)
    {
        Assert.True(
            session.Server.Findings.Count == 0,
            "broker findings: " + string.Join("; ", session.Server.Findings.Select(f => $"{f.Rule}: {f.Message}"))
        );
        var log = session.Server.Log.Snapshot();
        int frameMax = session.Client.FrameMax;
        Assert.All(log.Where(r => r.Direction == Protocol.Recording.FrameDirection.Received), r =>
            Assert.True(
                frameMax == 0 || r.WireLength <= frameMax,
                $"frame #{r.Sequence} is {r.WireLength} bytes > frame_max {frameMax}"
            )
        );
        Assert.Contains(log, r => r.Type == FrameType.Body || r.MethodName == "basic.publish");
        session.Pool.AssertClean();
    }
}

[Trait("WriterMode", "Background")]
public sealed class BackgroundWriterBrokerTests : WriterBrokerTests
{
    protected override FrameWriterFactory Factory => WriterModes.Background;
}

[Trait("WriterMode", "Inline")]
public sealed class InlineWriterBrokerTests : WriterBrokerTests
{
    protected override FrameWriterFactory Factory => WriterModes.Inline;
}

[Trait("WriterMode", "Coalescing")]
public sealed class CoalescingWriterBrokerTests : WriterBrokerTests
{
    protected override FrameWriterFactory Factory => WriterModes.Coalescing;
}
