using System.Collections;

namespace AmqpConformance.Protocol;

/// <summary>
/// An AMQP field table (RabbitMQ's variant): an ordered list of (short-string key, tagged value) entries.
/// Entry order and each value's exact type tag are kept, so decode then encode is byte-exact, and a
/// duplicated key on the wire stays duplicated (lookups return the first).
/// </summary>
/// <remarks>
/// Immutable once built. Build one with an object initializer, in the order the entries should go on the
/// wire: <c>new FieldTable { ["x-queue-type"] = "quorum", ["x-max-length"] = 10 }</c> (assigning an existing
/// key in the initializer replaces its value in place), from loosely typed values with
/// <see cref="FromObjects"/>, or derive a new table with <see cref="With"/>. Equality is entry-wise, in order.
/// </remarks>
public sealed class FieldTable : IReadOnlyList<KeyValuePair<string, FieldValue>>, IEquatable<FieldTable>
{
    private readonly List<KeyValuePair<string, FieldValue>> _entries;

    /// <summary>A table with no entries.</summary>
    public static FieldTable Empty { get; } = new();

    /// <summary>Creates an empty table (fill it with an object initializer).</summary>
    public FieldTable() => _entries = [];

    /// <summary>Creates a table of the given entries, in order, duplicates kept.</summary>
    public FieldTable(IEnumerable<KeyValuePair<string, FieldValue>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        _entries = [.. entries];
        foreach (var entry in _entries)
            ArgumentNullException.ThrowIfNull(entry.Key, nameof(entries));
    }

    /// <summary>Creates a table from loosely typed values (e.g. RabbitMQ.Client's
    /// <c>IDictionary&lt;string, object?&gt;</c>), converting each with <see cref="FieldValue.FromObject"/>.</summary>
    public static FieldTable FromObjects(IEnumerable<KeyValuePair<string, object?>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        return new FieldTable(entries.Select(e => KeyValuePair.Create(e.Key, FieldValue.FromObject(e.Value))));
    }

    /// <summary>The value of the first entry with <paramref name="key"/>; in an initializer, sets it.</summary>
    /// <exception cref="KeyNotFoundException">No entry has that key.</exception>
    public FieldValue this[string key]
    {
        get =>
            TryGetValue(key, out var value)
                ? value
                : throw new KeyNotFoundException($"Field table has no key \"{key}\".");
        init => Set(_entries, key, value);
    }

    /// <inheritdoc/>
    public KeyValuePair<string, FieldValue> this[int index] => _entries[index];

    /// <summary>Number of entries (duplicates counted).</summary>
    public int Count => _entries.Count;

    /// <summary>The keys in wire order.</summary>
    public IEnumerable<string> Keys => _entries.Select(e => e.Key);

    /// <summary>Whether some entry has <paramref name="key"/> (ordinal comparison).</summary>
    public bool ContainsKey(string key) => TryGetValue(key, out _);

    /// <summary>Finds the first entry with <paramref name="key"/> (ordinal comparison).</summary>
    public bool TryGetValue(string key, out FieldValue value)
    {
        ArgumentNullException.ThrowIfNull(key);
        foreach (var entry in _entries)
        {
            if (string.Equals(entry.Key, key, StringComparison.Ordinal))
            {
                value = entry.Value;
                return true;
            }
        }
        value = default;
        return false;
    }

    /// <summary>A new table with <paramref name="key"/> set to <paramref name="value"/>: replaced in place if
    /// present, appended otherwise. This table is unchanged.</summary>
    public FieldTable With(string key, FieldValue value)
    {
        var entries = new List<KeyValuePair<string, FieldValue>>(_entries);
        Set(entries, key, value);
        return new FieldTable(entries);
    }

    private static void Set(List<KeyValuePair<string, FieldValue>> entries, string key, FieldValue value)
    {
        ArgumentNullException.ThrowIfNull(key);
        for (int i = 0; i < entries.Count; i++)
        {
            if (string.Equals(entries[i].Key, key, StringComparison.Ordinal))
            {
                entries[i] = KeyValuePair.Create(key, value);
                return;
            }
        }
        entries.Add(KeyValuePair.Create(key, value));
    }

    /// <summary>Entries in wire order.</summary>
    public List<KeyValuePair<string, FieldValue>>.Enumerator GetEnumerator() => _entries.GetEnumerator();

    IEnumerator<KeyValuePair<string, FieldValue>> IEnumerable<KeyValuePair<string, FieldValue>>.GetEnumerator() =>
        _entries.GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => _entries.GetEnumerator();

    /// <summary>Same keys with the same tagged values, in the same order.</summary>
    public bool Equals(FieldTable? other)
    {
        if (other is null)
            return false;
        if (ReferenceEquals(this, other))
            return true;
        if (_entries.Count != other._entries.Count)
            return false;
        for (int i = 0; i < _entries.Count; i++)
        {
            if (!string.Equals(_entries[i].Key, other._entries[i].Key, StringComparison.Ordinal))
                return false;
            if (!_entries[i].Value.Equals(other._entries[i].Value))
                return false;
        }
        return true;
    }

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as FieldTable);

    /// <inheritdoc/>
    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.Add(_entries.Count);
        foreach (var entry in _entries)
        {
            hash.Add(entry.Key);
            hash.Add(entry.Value);
        }
        return hash.ToHashCode();
    }

    /// <summary>The entries, e.g. <c>{x-max-length=I:10, x-queue-type=S:"quorum"}</c>.</summary>
    public override string ToString() => "{" + string.Join(", ", _entries.Select(e => $"{e.Key}={e.Value}")) + "}";
}
