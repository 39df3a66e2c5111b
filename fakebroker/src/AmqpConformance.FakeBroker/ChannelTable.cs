using System.Diagnostics.CodeAnalysis;

namespace AmqpConformance.FakeBroker;

/// <summary>A connection's open channels by number, remembering the channel found last: a publisher sends frame after
/// frame on one channel, so most look-ups are answered without hashing. Single-threaded: the connection's receive loop
/// (and its end, after the loop).</summary>
internal sealed class ChannelTable
{
    private readonly Dictionary<ushort, ChannelState> _byNumber = [];
    private ChannelState? _last;

    /// <summary>How many channels are open.</summary>
    public int Count => _byNumber.Count;

    /// <summary>The open channels, in no particular order.</summary>
    public Dictionary<ushort, ChannelState>.ValueCollection Values => _byNumber.Values;

    /// <summary>The channel numbered <paramref name="number"/>, if it is open.</summary>
    public bool TryGetValue(ushort number, [NotNullWhen(true)] out ChannelState? channel)
    {
        var last = _last;
        if (last is not null && last.Number == number)
        {
            channel = last;
            return true;
        }
        if (!_byNumber.TryGetValue(number, out channel))
            return false;
        _last = channel;
        return true;
    }

    /// <summary>Adds (or replaces) the channel numbered <paramref name="number"/>.</summary>
    public ChannelState this[ushort number]
    {
        set
        {
            _byNumber[number] = value;
            _last = value;
        }
    }

    /// <summary>Forgets the channel numbered <paramref name="number"/>.</summary>
    public bool Remove(ushort number)
    {
        if (_last?.Number == number)
            _last = null;
        return _byNumber.Remove(number);
    }
}
