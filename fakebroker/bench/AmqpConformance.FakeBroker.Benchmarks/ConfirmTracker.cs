namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>
/// Publisher-confirm accounting for one channel: which publish sequence numbers (1, 2, 3, … in publish order) the
/// broker has acked or nacked. <see cref="Settle"/> takes one basic.ack or basic.nack as it came (a tag with
/// multiple=true settles every outstanding tag up to it; multiple=false settles that tag alone, in any order) and
/// returns how many publishes it newly settled, so that a caller can release that many slots of its window. A tag
/// settled twice, or one never published, counts nothing the second time. Not thread-safe: one reader calls it.
/// </summary>
internal sealed class ConfirmTracker
{
    // Every tag <= _settledUpTo is settled; above it, _singles holds tags settled one at a time out of order.
    private readonly HashSet<ulong> _singles = [];
    private ulong _settledUpTo;

    /// <summary>How many publishes the broker acked.</summary>
    public long Acked { get; private set; }

    /// <summary>How many publishes the broker nacked (it refused to take responsibility for them).</summary>
    public long Nacked { get; private set; }

    /// <summary>Acked plus nacked.</summary>
    public long Settled => Acked + Nacked;

    /// <summary>Records one confirm for <paramref name="tag"/> among the first <paramref name="published"/> publishes;
    /// returns how many publishes it settled that were outstanding.</summary>
    public int Settle(ulong tag, bool multiple, bool ack, ulong published)
    {
        if (tag > published)
            tag = published; // a broker confirming what was never sent: count only what was
        int newly = 0;
        if (multiple)
        {
            if (tag > _settledUpTo)
            {
                ulong span = tag - _settledUpTo;
                int already = 0;
                if (_singles.Count > 0)
                    already = _singles.RemoveWhere(t => t <= tag);
                newly = checked((int)(span - (ulong)already));
                _settledUpTo = tag;
            }
        }
        else if (tag > _settledUpTo && _singles.Add(tag))
        {
            newly = 1;
            while (_singles.Remove(_settledUpTo + 1))
                _settledUpTo++;
        }
        if (ack)
            Acked += newly;
        else
            Nacked += newly;
        return newly;
    }
}
