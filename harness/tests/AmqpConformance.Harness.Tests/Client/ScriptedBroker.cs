using System.Buffers;
using AmqpConformance.Harness.Client;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Tests.Client;

/// <summary>The broker end of an in-memory pair, driven step by step by a test, for exact control of what the client sees.</summary>
public sealed class ScriptedBroker
{
    private readonly DuplexPipe _pipe;

    public ScriptedBroker(DuplexPipe pipe) => _pipe = pipe;

    public async Task<byte[]> ReadProtocolHeaderAsync(CancellationToken ct)
    {
        while (true)
        {
            var result = await _pipe.Input.ReadAsync(ct);
            if (result.Buffer.Length >= 8)
            {
                var header = result.Buffer.Slice(0, 8).ToArray();
                _pipe.Input.AdvanceTo(result.Buffer.GetPosition(8));
                return header;
            }
            if (result.IsCompleted) throw new EndOfStreamException();
            _pipe.Input.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }
    }

    /// <summary>Reads the next frame; returns its type, channel, and the decoded method (null for other frames).</summary>
    public async Task<(FrameType Type, ushort Channel, IAmqpMethod? Method)> ReadFrameAsync(CancellationToken ct)
    {
        while (true)
        {
            var result = await _pipe.Input.ReadAsync(ct);
            var buffer = result.Buffer;
            var status = FrameReader.TryReadFrame(ref buffer, int.MaxValue, out var frame);
            if (status == FrameReadStatus.Frame)
            {
                var decoded = (frame.Type, frame.Channel, frame.Type == FrameType.Method ? MethodCodec.Decode(frame.Payload) : null);
                _pipe.Input.AdvanceTo(buffer.Start);
                return decoded;
            }
            if (status != FrameReadStatus.NeedMoreData) throw new InvalidDataException(status.ToString());
            if (result.IsCompleted) throw new EndOfStreamException();
            _pipe.Input.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    public async Task<T> ExpectAsync<T>(CancellationToken ct) where T : IAmqpMethod
    {
        var (_, _, method) = await ReadFrameAsync(ct);
        return Assert.IsType<T>(method);
    }

    /// <summary>Reads one whole publish (method, header, body frames); returns its body.</summary>
    public async Task<byte[]> ExpectPublishAsync(CancellationToken ct)
    {
        await ExpectAsync<BasicPublish>(ct);
        var body = new List<byte>();
        var (type, _, _) = await ReadHeaderAsync(ct);
        Assert.Equal(FrameType.Header, type);
        while (body.Count < _lastDeclared)
        {
            var payload = await ReadPayloadAsync(FrameType.Body, ct);
            body.AddRange(payload);
        }
        return [.. body];
    }

    private long _lastDeclared;

    private async Task<(FrameType, ushort, byte[])> ReadHeaderAsync(CancellationToken ct)
    {
        var payload = await ReadPayloadAsync(FrameType.Header, ct);
        _lastDeclared = (long)System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(payload.AsSpan(4));
        return (FrameType.Header, 0, payload);
    }

    private async Task<byte[]> ReadPayloadAsync(FrameType expected, CancellationToken ct)
    {
        while (true)
        {
            var result = await _pipe.Input.ReadAsync(ct);
            var buffer = result.Buffer;
            var status = FrameReader.TryReadFrame(ref buffer, int.MaxValue, out var frame);
            if (status == FrameReadStatus.Frame)
            {
                Assert.Equal(expected, frame.Type);
                var payload = frame.Payload.ToArray();
                _pipe.Input.AdvanceTo(buffer.Start);
                return payload;
            }
            if (result.IsCompleted) throw new EndOfStreamException();
            _pipe.Input.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    public async Task SendAsync(ushort channel, IAmqpMethod method, CancellationToken ct)
    {
        _pipe.Output.WriteMethodFrame(channel, method);
        await _pipe.Output.FlushAsync(ct);
    }

    public async Task SendHeartbeatAsync(CancellationToken ct)
    {
        _pipe.Output.WriteHeartbeat();
        await _pipe.Output.FlushAsync(ct);
    }

    /// <summary>Plays the broker's side of the handshake, offering <paramref name="frameMax"/>; returns the client's tune-ok.</summary>
    public async Task<(ConnectionStartOk StartOk, ConnectionTuneOk TuneOk, ConnectionOpen Open)> HandshakeAsync(uint frameMax, CancellationToken ct)
    {
        Assert.Equal(AmqpConstants.ProtocolHeader.ToArray(), await ReadProtocolHeaderAsync(ct));
        await SendAsync(0, new ConnectionStart { Mechanisms = "AMQPLAIN PLAIN" }, ct);
        var startOk = await ExpectAsync<ConnectionStartOk>(ct);
        await SendAsync(0, new ConnectionTune { ChannelMax = 100, FrameMax = frameMax, Heartbeat = 60 }, ct);
        var tuneOk = await ExpectAsync<ConnectionTuneOk>(ct);
        var open = await ExpectAsync<ConnectionOpen>(ct);
        await SendAsync(0, new ConnectionOpenOk(), ct);
        return (startOk, tuneOk, open);
    }
}
