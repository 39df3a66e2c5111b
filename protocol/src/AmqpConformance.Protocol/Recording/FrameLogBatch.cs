using System.Buffers;

namespace AmqpConformance.Protocol.Recording;

/// <summary>A run of frames recorded by one thread under one take of the log's lock: made by
/// <see cref="FrameLog.BeginBatch"/>, ended by <see cref="Dispose"/> on the same thread. A reader of a transport begins
/// one per read and records every frame of that read through it.</summary>
/// <remarks>The default value records nothing (calling <see cref="Record"/> on it throws); disposing it twice lets go
/// of the lock twice, which throws <see cref="SynchronizationLockException"/> once the lock is no longer
/// held.</remarks>
public readonly struct FrameLogBatch : IDisposable
{
    private readonly FrameLog _log;
    private readonly bool _held;

    internal FrameLogBatch(FrameLog log, bool held)
    {
        _log = log;
        _held = held;
    }

    /// <summary>Whether the batch holds the log's lock (false while the log has subscribers: then each frame takes
    /// it).</summary>
    public bool HoldsLock => _held;

    /// <summary>Records one frame, with the same arguments, result and stored facts as
    /// <see cref="FrameLog.Record(FrameDirection, long, TimeSpan, byte, ushort, int, in ReadOnlySequence{byte}, bool, bool)"/>.</summary>
    public long Record(
        FrameDirection direction,
        long wireOffset,
        TimeSpan timestamp,
        byte typeOctet,
        ushort channel,
        int size,
        in ReadOnlySequence<byte> payload,
        bool payloadPresent = true,
        bool frameEndValid = true
    )
    {
        if (_log is null)
            throw new InvalidOperationException("This FrameLogBatch was not made by FrameLog.BeginBatch.");
        return _held
            ? _log.RecordHeld(
                direction,
                wireOffset,
                timestamp,
                typeOctet,
                channel,
                size,
                payload,
                payloadPresent,
                frameEndValid
            )
            : _log.Record(
                direction,
                wireOffset,
                timestamp,
                typeOctet,
                channel,
                size,
                payload,
                payloadPresent,
                frameEndValid
            );
    }

    /// <summary>Lets go of the log's lock, if the batch took it.</summary>
    public void Dispose()
    {
        if (_held)
            _log.ExitGate();
    }
}
