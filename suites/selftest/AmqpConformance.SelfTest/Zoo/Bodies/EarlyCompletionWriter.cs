using System.Threading.Channels;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: completes the caller as soon as the command is queued but copies nothing, then writes the
/// body later from the caller's memory. A caller that reuses (or returns to a pool) its body buffer after the call
/// completes gets the new contents (or the pool's poison) on the wire. Callers that never reuse a body, or that
/// hand over a body owner, see nothing wrong.
/// </summary>
public sealed class EarlyCompletionWriter : IFrameWriter
{
    private readonly WriterContext _context;
    private readonly Channel<OutgoingCommand> _queue = Channel.CreateUnbounded<OutgoingCommand>(
        new UnboundedChannelOptions { SingleReader = true }
    );
    private readonly Task _loop;

    public EarlyCompletionWriter(WriterContext context)
    {
        _context = context;
        _loop = Task.Run(LoopAsync);
    }

    public ValueTask WriteAsync(OutgoingCommand command, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            command.Release(_context.Pool);
            return ValueTask.FromCanceled(cancellationToken);
        }
        // BUG: the body is neither copied nor waited for.
        if (!_queue.Writer.TryWrite(command))
        {
            command.Release(_context.Pool);
            return ValueTask.FromException(new ObjectDisposedException(nameof(EarlyCompletionWriter)));
        }
        return default;
    }

    private async Task LoopAsync()
    {
        await foreach (var command in _queue.Reader.ReadAllAsync().ConfigureAwait(false))
        {
            try
            {
                await Task.Yield(); // the caller has long moved on by now
                CommandFraming.Write(_context.Output, command, command.Body.Span, _context.FrameMax);
                await _context.Output.FlushAsync().ConfigureAwait(false);
            }
            catch (Exception)
            {
                // dropped: its caller was completed already, so nobody is left to tell (the broker sees the gap)
            }
            finally
            {
                command.Release(_context.Pool);
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        _queue.Writer.TryComplete();
        await _loop.WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
    }
}
