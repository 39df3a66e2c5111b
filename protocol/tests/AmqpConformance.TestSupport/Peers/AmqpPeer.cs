using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport.Peers;

/// <summary>
/// One end of a raw AMQP 0-9-1 connection for tests and benchmarks: it writes exactly the bytes, frames and methods it
/// is told to (broken ones included: <see cref="MalformedFrames"/>) and reads the other side's frames back, with no
/// protocol state of its own beyond what its subclass's conversation helpers keep. All framing is the codec's
/// (<see cref="FrameReader"/>, <see cref="FrameFormat"/>, <see cref="FrameWriterExtensions"/>,
/// <see cref="MethodCodec"/>). Runs over TCP or over any pair of pipes. Every read takes a token: pass one with a
/// timeout, it is the "within" of each expectation. One reader and one writer may run at the same time; two of either
/// may not.
/// </summary>
public abstract class AmqpPeer : IAsyncDisposable
{
    private readonly PipeReader _input;
    private readonly Socket? _socket;
    private readonly IAsyncDisposable? _owned;

    /// <summary>A peer reading <paramref name="input"/> and writing <paramref name="output"/>; it completes both when
    /// disposed, and disposes <paramref name="owned"/> (a stream or socket under them) after.</summary>
    protected AmqpPeer(PipeReader input, PipeWriter output, IAsyncDisposable? owned = null, Socket? socket = null)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        _input = input;
        Output = output;
        _owned = owned;
        _socket = socket;
    }

    /// <summary>The outgoing pipe, for bytes written by hand (then <see cref="FlushAsync"/>); the Send methods write
    /// and flush.</summary>
    public PipeWriter Output { get; }

    /// <summary>Opens a TCP connection to <paramref name="endpoint"/> (Nagle off) and returns its pipes and
    /// owners.</summary>
    protected static async Task<(
        PipeReader Input,
        PipeWriter Output,
        NetworkStream Stream,
        Socket Socket
    )> ConnectTcpAsync(EndPoint endpoint, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        var socket = new Socket(
            endpoint.AddressFamily == AddressFamily.Unspecified ? AddressFamily.InterNetwork : endpoint.AddressFamily,
            SocketType.Stream,
            ProtocolType.Tcp
        )
        {
            NoDelay = true,
        };
        try
        {
            await socket.ConnectAsync(endpoint, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
        var stream = new NetworkStream(socket, ownsSocket: true);
        return (PipeReader.Create(stream), PipeWriter.Create(stream), stream, socket);
    }

    // ------------------------------------------------------------------ writing

    /// <summary>Writes <paramref name="bytes"/> as they are and flushes.</summary>
    public async Task SendBytesAsync(ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken = default) =>
        await Output.WriteAsync(bytes, cancellationToken).ConfigureAwait(false);

    /// <summary>Writes <paramref name="bytes"/> straight to the connection's stream when the peer has one (a TCP peer),
    /// bypassing the outgoing pipe: no copy and, once the socket's own state is warm, no allocation per call, for
    /// benchmarks that write the same bytes many times. Over pipes it is <see cref="SendBytesAsync"/>. Use it only
    /// between the other Send calls (which flush): bytes written by hand into <see cref="Output"/> and not flushed yet
    /// would follow these.</summary>
    public ValueTask SendUnbufferedAsync(ReadOnlyMemory<byte> bytes, CancellationToken cancellationToken = default) =>
        _owned is Stream stream
            ? stream.WriteAsync(bytes, cancellationToken)
            : new ValueTask(SendBytesAsync(bytes, cancellationToken));

    /// <summary>Writes the AMQP 0-9-1 protocol header ("AMQP" 0 0 9 1).</summary>
    public Task SendProtocolHeaderAsync(CancellationToken cancellationToken = default) =>
        SendBytesAsync(AmqpConstants.ProtocolHeader.ToArray(), cancellationToken);

    /// <summary>Writes one well-formed frame of any type around <paramref name="payload"/>.</summary>
    public Task SendFrameAsync(
        FrameType type,
        ushort channel,
        ReadOnlySpan<byte> payload,
        CancellationToken cancellationToken = default
    )
    {
        FrameFormat.WriteFrame(Output, type, channel, payload);
        return FlushAsync(cancellationToken);
    }

    /// <summary>Writes <paramref name="method"/> as one method frame.</summary>
    public Task SendMethodAsync(ushort channel, IAmqpMethod method, CancellationToken cancellationToken = default)
    {
        Output.WriteMethodFrame(channel, method);
        return FlushAsync(cancellationToken);
    }

    /// <summary>Writes a content command (method, header, body frames of at most <paramref name="frameMax"/> - 8 bytes;
    /// 0 = one frame) in one flush.</summary>
    public Task SendContentAsync(
        ushort channel,
        IAmqpMethod method,
        ReadOnlySpan<byte> body,
        int frameMax,
        BasicProperties? properties = null,
        CancellationToken cancellationToken = default
    )
    {
        Output.WriteMethodFrame(channel, method);
        Output.WriteHeaderFrame(channel, new ContentHeader((ulong)body.Length, properties));
        FrameFormat.WriteBodyFrames(Output, channel, body, frameMax);
        return FlushAsync(cancellationToken);
    }

    /// <summary>Writes a heartbeat frame on channel 0.</summary>
    public Task SendHeartbeatAsync(CancellationToken cancellationToken = default)
    {
        Output.WriteHeartbeat();
        return FlushAsync(cancellationToken);
    }

    /// <summary>Flushes what was written to <see cref="Output"/>.</summary>
    public async Task FlushAsync(CancellationToken cancellationToken = default) =>
        await Output.FlushAsync(cancellationToken).ConfigureAwait(false);

    // ------------------------------------------------------------------ reading

    /// <summary>The next frame (or protocol header) the other side sent; null once its stream ended or was reset, even
    /// inside a frame.</summary>
    /// <exception cref="PeerExpectationException">A frame header claims more than 2 GiB.</exception>
    public async Task<ReceivedFrame?> ReadFrameAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result;
            try
            {
                result = await _input.ReadAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (IOException)
            {
                return null; // reset
            }
            ReadOnlySequence<byte> buffer = result.Buffer;
            if (TryTake(ref buffer, out ReceivedFrame? item))
            {
                _input.AdvanceTo(buffer.Start);
                return item;
            }
            _input.AdvanceTo(buffer.Start, buffer.End);
            if (result.IsCompleted)
                return null;
        }
    }

    /// <summary>Exactly <paramref name="count"/> raw bytes, or fewer if the stream ends first.</summary>
    public async Task<byte[]> ReadBytesAsync(int count, CancellationToken cancellationToken)
    {
        while (true)
        {
            ReadResult result;
            try
            {
                result = await _input.ReadAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (IOException)
            {
                return [];
            }
            ReadOnlySequence<byte> buffer = result.Buffer;
            if (buffer.Length >= count || result.IsCompleted)
            {
                byte[] bytes = buffer.Slice(0, Math.Min(count, buffer.Length)).ToArray();
                _input.AdvanceTo(buffer.GetPosition(bytes.Length));
                return bytes;
            }
            _input.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    /// <summary>The next method frame, heartbeats skipped.</summary>
    /// <exception cref="PeerExpectationException">The stream ended, or a frame of another kind came.</exception>
    public async Task<(ushort Channel, IAmqpMethod Method)> ReadMethodAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            ReceivedFrame frame = await ReadFrameAsync(cancellationToken).ConfigureAwait(false)
                ?? throw new PeerExpectationException("The stream ended while a method frame was expected.");
            if (frame.IsHeartbeat)
                continue;
            if (!frame.IsMethod)
                throw new PeerExpectationException($"Expected a method frame, got {frame}.", frame);
            return (frame.Channel, frame.Method);
        }
    }

    /// <summary>The next method (heartbeats skipped), which must be a <typeparamref name="T"/>.</summary>
    /// <exception cref="PeerExpectationException">Another method or frame came (see
    /// <see cref="PeerExpectationException.Method"/>: often a close), or the stream ended.</exception>
    public async Task<T> ExpectAsync<T>(CancellationToken cancellationToken)
        where T : IAmqpMethod
    {
        while (true)
        {
            ReceivedFrame frame = await ReadFrameAsync(cancellationToken).ConfigureAwait(false)
                ?? throw new PeerExpectationException($"The stream ended while {typeof(T).Name} was expected.");
            if (frame.IsHeartbeat)
                continue;
            if (frame.MethodOrNull is T expected)
                return expected;
            throw new PeerExpectationException($"Expected {typeof(T).Name}, got {frame}.", frame);
        }
    }

    /// <summary>The next content command: a <typeparamref name="T"/>, its header, then body frames up to the declared
    /// size (heartbeats skipped before the method).</summary>
    /// <exception cref="PeerExpectationException">Another frame came, or the stream ended, before the command was
    /// whole.</exception>
    public async Task<ReceivedContent<T>> ExpectContentAsync<T>(CancellationToken cancellationToken)
        where T : IAmqpMethod
    {
        T method = await ExpectAsync<T>(cancellationToken).ConfigureAwait(false);
        ReceivedFrame headerFrame = await ExpectFrameAsync(FrameType.Header, cancellationToken).ConfigureAwait(false);
        ContentHeader header = ContentHeader.Decode(headerFrame.Payload);
        var body = new ArrayBufferWriter<byte>();
        int bodyFrames = 0;
        while ((ulong)body.WrittenCount < header.BodySize)
        {
            body.Write((await ExpectFrameAsync(FrameType.Body, cancellationToken).ConfigureAwait(false)).Payload);
            bodyFrames++;
        }
        return new ReceivedContent<T>(headerFrame.Channel, method, header, body.WrittenSpan.ToArray(), bodyFrames);
    }

    /// <summary>Reads until connection.close (skipping anything else), answers close-ok (if the stream still takes it)
    /// and returns the close.</summary>
    /// <exception cref="PeerExpectationException">The stream ended without connection.close.</exception>
    public async Task<ConnectionClose> ExpectConnectionCloseAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            ReceivedFrame frame = await ReadFrameAsync(cancellationToken).ConfigureAwait(false)
                ?? throw new PeerExpectationException("The stream ended without connection.close.");
            if (frame.Channel != 0 || frame.MethodOrNull is not ConnectionClose close)
                continue;
            try
            {
                await SendMethodAsync(0, new ConnectionCloseOk(), cancellationToken).ConfigureAwait(false);
            }
            catch (IOException)
            {
                // The other side closed the transport already.
            }
            return close;
        }
    }

    /// <summary>As <see cref="ExpectConnectionCloseAsync(CancellationToken)"/>, and the close must carry
    /// <paramref name="replyCode"/>.</summary>
    /// <exception cref="PeerExpectationException">No close came, or one with another reply code.</exception>
    public async Task<ConnectionClose> ExpectConnectionCloseAsync(ushort replyCode, CancellationToken cancellationToken)
    {
        ConnectionClose close = await ExpectConnectionCloseAsync(cancellationToken).ConfigureAwait(false);
        return close.ReplyCode == replyCode
            ? close
            : throw new PeerExpectationException($"Expected connection.close {replyCode}, got {close}.");
    }

    /// <summary>Expects the other side to end the stream: reads until it does and returns every method frame seen on
    /// the way.</summary>
    public async Task<List<IAmqpMethod>> ReadUntilClosedAsync(CancellationToken cancellationToken)
    {
        var methods = new List<IAmqpMethod>();
        while (await ReadFrameAsync(cancellationToken).ConfigureAwait(false) is { } frame)
            if (frame.IsMethod)
                methods.Add(frame.Method);
        return methods;
    }

    // ------------------------------------------------------------------ ending

    /// <summary>Closes a TCP transport with a reset (RST) instead of a FIN, as a crashed peer would.</summary>
    /// <exception cref="InvalidOperationException">The peer runs over pipes.</exception>
    public void Reset()
    {
        Socket socket = _socket ?? throw new InvalidOperationException("Only a TCP peer can be reset.");
        socket.LingerState = new LingerOption(true, 0);
        socket.Close();
    }

    /// <summary>Completes both pipes and disposes the transport; never throws.</summary>
    public async ValueTask DisposeAsync()
    {
        try
        {
            await Output.CompleteAsync().ConfigureAwait(false);
        }
        catch (Exception)
        { /* the transport is gone already */
        }
        try
        {
            await _input.CompleteAsync().ConfigureAwait(false);
        }
        catch (Exception)
        { /* likewise */
        }
        if (_owned is not null)
            await _owned.DisposeAsync().ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }

    private async Task<ReceivedFrame> ExpectFrameAsync(FrameType type, CancellationToken cancellationToken)
    {
        ReceivedFrame frame = await ReadFrameAsync(cancellationToken).ConfigureAwait(false)
            ?? throw new PeerExpectationException($"The stream ended while a {type} frame was expected.");
        return frame.Type == type && !frame.IsProtocolHeader
            ? frame
            : throw new PeerExpectationException($"Expected a {type} frame, got {frame}.", frame);
    }

    /// <summary>Takes one protocol header (bytes starting with 'A', which is no frame type) or one frame off the
    /// buffer.</summary>
    private static bool TryTake(ref ReadOnlySequence<byte> buffer, out ReceivedFrame? item)
    {
        item = null;
        if (buffer.IsEmpty)
            return false;
        if (ProtocolHeaderCheck.Inspect(buffer) != ProtocolHeaderStatus.NotAmqp)
        {
            if (buffer.Length < ProtocolHeaderCheck.Length)
                return false;
            item = new ReceivedFrame(
                (byte)'A',
                0,
                buffer.Slice(0, ProtocolHeaderCheck.Length).ToArray(),
                IsProtocolHeader: true
            );
            buffer = buffer.Slice(ProtocolHeaderCheck.Length);
            return true;
        }
        switch (FrameReader.TryReadFrame(ref buffer, long.MaxValue, out RawFrame frame))
        {
            case FrameReadStatus.NeedMoreData:
                return false;
            case FrameReadStatus.PayloadTooLarge:
                throw new PeerExpectationException(
                    $"The other side sent a frame header claiming {frame.ClaimedSize} bytes ({frame})."
                );
            default:
                item = new ReceivedFrame(frame.TypeOctet, frame.Channel, frame.Payload.ToArray(), frame.EndOctet);
                return true;
        }
    }
}
