using System.IO.Pipelines;

namespace AmqpConformance.Harness.Tests.Faults;

/// <summary>Small helpers shared by the faulty transport tests.</summary>
internal static class FaultyTransportTestKit
{
    public static byte[] Pattern(int length, int salt = 0)
    {
        var bytes = new byte[length];
        for (int i = 0; i < length; i++)
            bytes[i] = (byte)((i * 31 + salt) ^ (i >> 8));
        return bytes;
    }

    /// <summary>Reads until the end of stream (or an exception); returns the bytes, the read sizes and the
    /// error.</summary>
    public static async Task<(byte[] Bytes, List<long> Reads, Exception? Error)> ReadAllAsync(
        PipeReader reader,
        CancellationToken ct
    )
    {
        var all = new MemoryStream();
        var reads = new List<long>();
        try
        {
            while (true)
            {
                ReadResult r = await reader.ReadAsync(ct);
                if (r.Buffer.Length > 0)
                    reads.Add(r.Buffer.Length);
                foreach (ReadOnlyMemory<byte> m in r.Buffer)
                    all.Write(m.Span);
                reader.AdvanceTo(r.Buffer.End);
                if (r.IsCompleted)
                    break;
            }
            await reader.CompleteAsync();
            return (all.ToArray(), reads, null);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            await reader.CompleteAsync();
            return (all.ToArray(), reads, e);
        }
    }

    /// <summary>Writes <paramref name="data"/> as flushes of the given sizes (cycled).</summary>
    public static async Task WriteInFlushesAsync(PipeWriter writer, byte[] data, int[] flushSizes, CancellationToken ct)
    {
        int pos = 0,
            i = 0;
        while (pos < data.Length)
        {
            int n = Math.Min(flushSizes[i++ % flushSizes.Length], data.Length - pos);
            await writer.WriteAsync(data.AsMemory(pos, n), ct);
            pos += n;
        }
    }

    public static CancellationTokenSource Timeout(int seconds = 10) => new(TimeSpan.FromSeconds(seconds));
}
