namespace AmqpConformance.FakeBroker;

/// <summary>A double-ended queue in one growable ring of <typeparamref name="T"/>: add at either end, take from the front,
/// enumerate front to back. A queue's ready messages live in one, so holding a message costs no node object (a linked
/// list's node per message was a sixth of what the broker allocated per stored 256 B message). Not thread-safe: the
/// broker uses it under the virtual host's lock.</summary>
internal sealed class Deque<T>
{
    private T[] _items = [];
    private int _head;
    private int _count;

    /// <summary>How many items it holds.</summary>
    public int Count => _count;

    /// <summary>Adds <paramref name="item"/> after the last.</summary>
    public void AddLast(T item)
    {
        if (_count == _items.Length) Grow();
        _items[(_head + _count) % _items.Length] = item;
        _count++;
    }

    /// <summary>Adds <paramref name="item"/> before the first.</summary>
    public void AddFirst(T item)
    {
        if (_count == _items.Length) Grow();
        _head = (_head + _items.Length - 1) % _items.Length;
        _items[_head] = item;
        _count++;
    }

    /// <summary>Takes the first item out; false when empty.</summary>
    public bool TryRemoveFirst(out T item)
    {
        if (_count == 0)
        {
            item = default!;
            return false;
        }
        item = _items[_head];
        _items[_head] = default!; // the ring does not keep what it gave away alive
        _head = (_head + 1) % _items.Length;
        _count--;
        return true;
    }

    /// <summary>Removes every item (and lets go of them).</summary>
    public void Clear()
    {
        if (_count == 0) return;
        int firstRun = Math.Min(_count, _items.Length - _head);
        Array.Clear(_items, _head, firstRun);
        Array.Clear(_items, 0, _count - firstRun);
        _head = 0;
        _count = 0;
    }

    /// <summary>Front to back, without allocating. Must not be used across a change.</summary>
    public Enumerator GetEnumerator() => new(this);

    private void Grow()
    {
        var grown = new T[Math.Max(4, _items.Length * 2)];
        int firstRun = Math.Min(_count, _items.Length - _head);
        Array.Copy(_items, _head, grown, 0, firstRun);
        Array.Copy(_items, 0, grown, firstRun, _count - firstRun);
        _items = grown;
        _head = 0;
    }

    /// <summary>Enumerates a <see cref="Deque{T}"/> front to back.</summary>
    public struct Enumerator(Deque<T> deque)
    {
        private int _index = -1;

        /// <summary>The item at the current position.</summary>
        public readonly T Current => deque._items[(deque._head + _index) % deque._items.Length];

        /// <summary>Moves to the next item; false past the last.</summary>
        public bool MoveNext() => ++_index < deque._count;
    }
}
