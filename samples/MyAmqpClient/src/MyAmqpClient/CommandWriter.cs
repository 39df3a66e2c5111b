using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;

namespace MyAmqpClient;

/// <summary>
/// Writes whole AMQP 0-9-1 commands to a connection's <see cref="PipeWriter"/>: the command's serialized method (and
/// content header) frames, then its body cut into body frames of at most frame_max - 8 bytes, then one flush. One
/// command at a time (a <see cref="SemaphoreSlim"/>), so commands never interleave; a call completes after its flush,
/// so the caller's body is not touched afterwards.
/// </summary>
/// <remarks>
/// Cancellation is honoured only while waiting for the lock, before any byte is written. When the output fails, the
/// writer stops for good: that call and every later one throw <see cref="IOException"/>. <see cref="DisposeAsync"/>
/// waits up to the drain timeout for the call in progress, then cancels its flush, so it never hangs.
/// </remarks>
public sealed class CommandWriter : IAsyncDisposable
{
    private const byte BodyFrameType = 3;
    private const byte FrameEnd = 0xCE;
    private readonly PipeWriter _output;
    private readonly int _frameMax;
    private readonly TimeSpan _drainTimeout;
    private readonly SemaphoreSlim _lock = new(1, 1);
    private Exception? _fault;
    private bool _disposed;

    /// <summary>Creates a writer for one connection.</summary>
    /// <param name="output">The connection's output; the writer writes and flushes it, never completes it.</param>
    /// <param name="frameMax">The negotiated frame_max; 0 means unlimited.</param>
    /// <param name="drainTimeout">How long disposal waits for the command in progress.</param>
    public CommandWriter(PipeWriter output, int frameMax, TimeSpan drainTimeout)
    {
        ArgumentNullException.ThrowIfNull(output);
        _output = output;
        _frameMax = frameMax;
        _drainTimeout = drainTimeout;
    }

    /// <summary>Writes one command and flushes it; completes after the flush.</summary>
    /// <param name="frames">The command's method frame and, for content, its content header frame, serialized.</param>
    /// <param name="channel">The channel of the body frames.</param>
    /// <param name="body">The body (empty for none); read only until this call completes.</param>
    /// <param name="cancellationToken">Cancels the wait for the lock; nothing is written then.</param>
    public async ValueTask WriteAsync(
        ReadOnlyMemory<byte> frames,
        ushort channel,
        ReadOnlyMemory<byte> body,
        CancellationToken cancellationToken
    )
    {
        await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (_fault is not null)
                throw new IOException("The connection's output failed earlier; nothing more is written.", _fault);
            ObjectDisposedException.ThrowIf(_disposed, this);
            try
            {
                _output.Write(frames.Span);
                WriteBodyFrames(channel, body.Span);
                FlushResult flushed = await _output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                if (flushed.IsCanceled)
                    throw new TimeoutException("Disposal gave up on this command: the output did not take it in time.");
                if (flushed.IsCompleted)
                    throw new IOException("The connection's output was closed by its reader.");
            }
            catch (Exception e)
            {
                _fault = e;
                throw e as IOException
                    ?? new IOException($"Writing to the connection failed ({e.GetType().Name}: {e.Message}).", e);
            }
        }
        finally
        {
            _lock.Release();
        }
    }

    private void WriteBodyFrames(ushort channel, ReadOnlySpan<byte> body)
    {
        int maxPayload = _frameMax == 0 ? int.MaxValue - 8 : _frameMax - 8;
        while (!body.IsEmpty)
        {
            ReadOnlySpan<byte> payload = body[..Math.Min(body.Length, maxPayload)];
            Span<byte> header = _output.GetSpan(7);
            header[0] = BodyFrameType;
            BinaryPrimitives.WriteUInt16BigEndian(header[1..], channel);
            BinaryPrimitives.WriteUInt32BigEndian(header[3..], (uint)payload.Length);
            _output.Advance(7);
            _output.Write(payload);
            _output.Write([FrameEnd]);
            body = body[payload.Length..];
        }
    }

    /// <summary>Waits (at most twice the drain timeout) for the command in progress, then stops the writer.</summary>
    public async ValueTask DisposeAsync()
    {
        bool held = await _lock.WaitAsync(_drainTimeout).ConfigureAwait(false);
        if (!held)
        {
            _output.CancelPendingFlush();
            held = await _lock.WaitAsync(_drainTimeout).ConfigureAwait(false);
        }
        _disposed = true;
        if (held)
            _lock.Release();
    }
}
