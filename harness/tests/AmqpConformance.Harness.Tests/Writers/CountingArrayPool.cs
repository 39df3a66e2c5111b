using System.Buffers;

namespace AmqpConformance.Harness.Tests.Writers;

/// <summary>An array pool that counts rents and returns and remembers which arrays it handed out.</summary>
internal sealed class CountingArrayPool : ArrayPool<byte>
{
    private readonly HashSet<byte[]> _outstanding = new(ReferenceEqualityComparer.Instance);

    public int Rents { get; private set; }
    public int Returns { get; private set; }
    public int Outstanding => _outstanding.Count;

    public bool IsOutstanding(byte[] array) => _outstanding.Contains(array);

    public override byte[] Rent(int minimumLength)
    {
        Rents++;
        var array = new byte[minimumLength + 16]; // larger than asked, like real pools
        _outstanding.Add(array);
        return array;
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Returns++;
        if (!_outstanding.Remove(array))
            throw new InvalidOperationException("Returned an array this pool did not rent (or twice).");
    }
}
