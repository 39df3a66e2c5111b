using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>The broker sent connection.close where the benchmark client expected another method.</summary>
internal sealed class BrokerClosedException(ConnectionClose close, string expected)
    : Exception($"expected {expected}, got connection.close {close.ReplyCode} {close.ReplyText}")
{
    /// <summary>The broker's reply code (541 = INTERNAL_ERROR: the broker failed, e.g. out of memory).</summary>
    public ushort ReplyCode { get; } = close.ReplyCode;
}
