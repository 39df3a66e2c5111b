using System.Buffers;
using System.IO.Pipelines;

namespace AmqpConformance.Harness.Benchmarks;

/// <summary>The baseline: each command's whole wire image (method, header and body frames) is built once up front;
/// a call copies that one array into the output under a lock and flushes. No framing, no pooling, no queue.</summary>
internal sealed class RawPreserializedWriter(PipeWriter output)
{
    private readonly SemaphoreSlim _lock = new(1, 1);

    public async ValueTask WriteAsync(byte[] wireImage)
    {
        await _lock.WaitAsync().ConfigureAwait(false);
        try
        {
            output.Write(wireImage);
            await output.FlushAsync().ConfigureAwait(false);
        }
        finally
        {
            _lock.Release();
        }
    }
}
