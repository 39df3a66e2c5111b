using System.Collections;
using System.Runtime.CompilerServices;

namespace AmqpConformance.Protocol;

/// <summary>
/// An AMQP field array ('A'): an ordered, immutable list of tagged <see cref="FieldValue"/>s.
/// Build one with a collection expression (<c>FieldArray a = [1, "x", true];</c>) or the constructors.
/// Equality is element-wise, in order.
/// </summary>
[CollectionBuilder(typeof(FieldArray), nameof(Create))]
public sealed class FieldArray : IReadOnlyList<FieldValue>, IEquatable<FieldArray>
{
    private readonly FieldValue[] _items;

    /// <summary>An empty array.</summary>
    public static FieldArray Empty { get; } = new();

    /// <summary>Creates an array of the given values, in order.</summary>
    public FieldArray(params FieldValue[] items)
    {
        ArgumentNullException.ThrowIfNull(items);
        _items = (FieldValue[])items.Clone();
    }

    /// <summary>Creates an array of the given values, in order.</summary>
    public FieldArray(IEnumerable<FieldValue> items)
    {
        ArgumentNullException.ThrowIfNull(items);
        _items = items.ToArray();
    }

    /// <summary>Collection-expression builder.</summary>
    public static FieldArray Create(ReadOnlySpan<FieldValue> items) => new(items.ToArray());

    /// <inheritdoc/>
    public FieldValue this[int index] => _items[index];

    /// <inheritdoc/>
    public int Count => _items.Length;

    /// <inheritdoc/>
    public IEnumerator<FieldValue> GetEnumerator() => ((IEnumerable<FieldValue>)_items).GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    /// <summary>Same values with the same tags, in the same order.</summary>
    public bool Equals(FieldArray? other)
    {
        if (other is null)
            return false;
        if (ReferenceEquals(this, other))
            return true;
        if (_items.Length != other._items.Length)
            return false;
        for (int i = 0; i < _items.Length; i++)
            if (!_items[i].Equals(other._items[i]))
                return false;
        return true;
    }

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as FieldArray);

    /// <inheritdoc/>
    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.Add(_items.Length);
        foreach (var item in _items)
            hash.Add(item);
        return hash.ToHashCode();
    }

    /// <summary>The values, e.g. <c>[I:1, S:"x"]</c>.</summary>
    public override string ToString() => "[" + string.Join(", ", _items) + "]";

    /// <summary>The values as a span, for the encoder.</summary>
    internal ReadOnlySpan<FieldValue> AsSpan() => _items;
}
