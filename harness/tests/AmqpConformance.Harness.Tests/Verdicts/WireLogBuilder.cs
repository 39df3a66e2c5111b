using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Harness.Tests.Verdicts;

/// <summary>Builds frame logs and call timelines by hand for checker tests.</summary>
internal sealed class WireLogBuilder(int frameMax = 4096)
{
    private readonly List<FrameRecord> _frames = [];
    private readonly List<CallRecord> _calls = [];
    private long _offset;

    public int FrameMax { get; } = frameMax;

    public long Add(
        FrameType type,
        ushort channel,
        byte[] payload,
        bool frameEndValid = true,
        ushort classId = 0,
        ushort methodId = 0,
        long? declared = null
    )
    {
        var f = new FrameRecord
        {
            Sequence = _frames.Count,
            Direction = FrameDirection.Received,
            WireOffset = _offset,
            Timestamp = TimeSpan.FromMilliseconds(_frames.Count),
            Type = type,
            Channel = channel,
            Size = payload.Length,
            ClassId = classId,
            MethodId = methodId,
            DeclaredBodySize = declared,
            Payload = payload,
            FrameEndValid = frameEndValid,
            PayloadDigest = type == FrameType.Body ? FrameDigest.Compute(payload) : null,
        };
        _frames.Add(f);
        _offset += f.WireLength;
        return f.Sequence;
    }

    public long Method(ushort channel, int callId)
    {
        byte[] p = MethodCodec.ToPayload(
            new BasicPublish { Exchange = "", RoutingKey = CallCorrelation.RoutingKeyFor(callId) }
        );
        return Add(
            FrameType.Method,
            channel,
            p,
            classId: BasicPublish.ClassIdValue,
            methodId: BasicPublish.MethodIdValue
        );
    }

    /// <summary>A call without content: basic.cancel (nowait) whose consumer tag is <paramref name="consumerTag"/>, by
    /// default the one naming call <paramref name="callId"/>.</summary>
    public long Cancel(ushort channel, int callId, string? consumerTag = null)
    {
        byte[] p = MethodCodec.ToPayload(
            new BasicCancel { ConsumerTag = consumerTag ?? CallCorrelation.ConsumerTagFor(callId), NoWait = true }
        );
        return Add(
            FrameType.Method,
            channel,
            p,
            classId: BasicCancel.ClassIdValue,
            methodId: BasicCancel.MethodIdValue
        );
    }

    public long Header(ushort channel, long bodySize, BasicProperties? properties = null)
    {
        var header = new ContentHeader((ulong)bodySize, properties);
        var p = new byte[header.EncodedLength()];
        header.Encode(p);
        return Add(FrameType.Header, channel, p, classId: AmqpConstants.BasicClassId, declared: bodySize);
    }

    public long Body(ushort channel, ReadOnlySpan<byte> payload) => Add(FrameType.Body, channel, payload.ToArray());

    /// <summary>A heartbeat frame: type 8, channel 0, an empty payload.</summary>
    public long Heartbeat() => Add(FrameType.Heartbeat, 0, []);

    /// <summary>A heartbeat call (<see cref="CallRecord.Heartbeat"/>) on channel 0.</summary>
    public CallRecord HeartbeatCall(
        int id,
        double startMs,
        double? endMs,
        CallOutcome outcome = CallOutcome.Succeeded,
        int publisher = 0,
        int index = 0
    )
    {
        var call = Call(id, [], startMs, endMs, outcome, publisher, index, channel: 0) with
        {
            HasContent = false,
            Heartbeat = true,
        };
        Replace(call);
        return call;
    }

    /// <summary>Writes a whole well-formed publish of <paramref name="body"/> for call
    /// <paramref name="callId"/>.</summary>
    public long[] Publish(ushort channel, int callId, byte[] body)
    {
        var seqs = new List<long> { Method(channel, callId), Header(channel, body.Length) };
        int max = AmqpConstants.MaxBodyFramePayload(FrameMax);
        for (int o = 0; o < body.Length; o += max)
            seqs.Add(Body(channel, body.AsSpan(o, Math.Min(max, body.Length - o))));
        return [.. seqs];
    }

    public CallRecord Call(
        int id,
        byte[] body,
        double startMs,
        double? endMs,
        CallOutcome outcome = CallOutcome.Succeeded,
        int publisher = 0,
        int index = 0,
        ushort channel = 1,
        string? error = null
    )
    {
        var call = new CallRecord
        {
            Id = id,
            Publisher = publisher,
            IndexInPublisher = index,
            Channel = channel,
            ExpectedBody = body,
            Started = TimeSpan.FromMilliseconds(startMs),
            Ended = endMs is { } e ? TimeSpan.FromMilliseconds(e) : null,
            Outcome = outcome,
            Error = error
                ?? (
                    outcome == CallOutcome.Cancelled ? "OperationCanceledException: cancelled"
                    : outcome == CallOutcome.Failed ? "IOException: reset"
                    : null
                ),
        };
        _calls.Add(call);
        return call;
    }

    public void Replace(CallRecord call) => _calls[_calls.FindIndex(c => c.Id == call.Id)] = call;

    public ConformanceEvidence Evidence(Func<ConformanceEvidence, ConformanceEvidence>? edit = null)
    {
        var e = new ConformanceEvidence
        {
            Frames = [.. _frames],
            Calls = [.. _calls],
            FrameMax = FrameMax,
        };
        return edit is null ? e : edit(e);
    }

    public static byte[] Bytes(int length, int seed = 1)
    {
        var b = new byte[length];
        new Random(seed).NextBytes(b);
        return b;
    }
}
