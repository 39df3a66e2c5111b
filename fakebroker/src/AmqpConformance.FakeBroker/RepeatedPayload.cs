using System.Buffers;

namespace AmqpConformance.FakeBroker;

/// <summary>The last payload of one kind a connection decoded (a basic.publish, a content header) and what it decoded
/// to, so that the same bytes arriving again (a publisher sends the same method and header again and again) are
/// compared instead of decoded: no new strings, tables or records per message. Single-threaded: the receive
/// loop's.</summary>
/// <remarks>Sound because decoding is a pure function of the bytes and its results are immutable records, so sharing
/// one result between messages is the same as decoding it again. The kept bytes are an array of their own, never
/// written after <see cref="Remember"/>, so they can be handed out (as a message's header payload) too.</remarks>
internal sealed class RepeatedPayload<T>
    where T : class
{
    /// <summary>Payloads longer than this are not kept (a publish or header that large is rare, and comparing
    /// costs).</summary>
    public const int MaxKept = 512;

    private byte[] _bytes = [];
    private T? _value;

    /// <summary>The bytes last remembered (an exact-size array, never written again).</summary>
    public byte[] Bytes => _bytes;

    /// <summary>Whether <paramref name="payload"/> equals the bytes last remembered; if so, gives their decoded
    /// value.</summary>
    public bool TryGet(in ReadOnlySequence<byte> payload, out T value)
    {
        value = _value!;
        if (_value is null || payload.Length != _bytes.Length)
            return false;
        if (payload.IsSingleSegment)
            return payload.FirstSpan.SequenceEqual(_bytes);
        Span<byte> copy = stackalloc byte[MaxKept];
        payload.CopyTo(copy);
        return copy[.._bytes.Length].SequenceEqual(_bytes);
    }

    /// <summary>Remembers <paramref name="bytes"/> (which the caller will never write again) and their decoded value,
    /// unless they are longer than <see cref="MaxKept"/>.</summary>
    public void Remember(byte[] bytes, T value)
    {
        if (bytes.Length > MaxKept)
            return;
        _bytes = bytes;
        _value = value;
    }
}
