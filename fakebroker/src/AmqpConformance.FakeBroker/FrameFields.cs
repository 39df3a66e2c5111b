using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker;

/// <summary>Everything a <see cref="FrameRecord"/> holds but its sequence number, which the log assigns under its lock:
/// passed by value to <see cref="FrameLog.Append{TState}(TState, Func{long, TState, FrameRecord})"/> so recording a
/// frame allocates the record and nothing else.</summary>
internal readonly record struct FrameFields(
    FrameDirection Direction, long WireOffset, TimeSpan Timestamp, FrameType Type, ushort Channel, int Size,
    ushort ClassId, ushort MethodId, string? MethodName, long? DeclaredBodySize, ulong? PayloadDigest,
    ReadOnlyMemory<byte>? Payload, bool FrameEndValid)
{
    /// <summary>Makes the record for a sequence number from the fields (a static delegate: no closure).</summary>
    public static readonly Func<long, FrameFields, FrameRecord> ToRecord = static (sequence, f) => new FrameRecord
    {
        Sequence = sequence,
        Direction = f.Direction,
        WireOffset = f.WireOffset,
        Timestamp = f.Timestamp,
        Type = f.Type,
        Channel = f.Channel,
        Size = f.Size,
        ClassId = f.ClassId,
        MethodId = f.MethodId,
        MethodName = f.MethodName,
        DeclaredBodySize = f.DeclaredBodySize,
        PayloadDigest = f.PayloadDigest,
        Payload = f.Payload,
        FrameEndValid = f.FrameEndValid,
    };
}
