using System.Buffers;
using System.Diagnostics;
using System.Numerics;

namespace AmqpConformance.Harness.Pooling;

/// <summary>
/// An <see cref="ArrayPool{T}"/> of bytes that keeps a ledger of every array it hands out, so a test can prove a
/// frame writer returns each rental exactly once and never touches an array after returning it.
/// </summary>
/// <remarks>
/// <para>What it records: outstanding rentals (by array identity), double returns, returns of arrays it never
/// rented (foreign returns), and writes to returned arrays. Returned arrays are filled with
/// <see cref="TrackingArrayPoolOptions.PoisonByte"/>; the fill is checked when the array is rented again and on
/// <see cref="Verify"/>, and a broken fill is reported with the array id and the offsets written.</para>
/// <para>It is a real pool: returned arrays are reused (smallest power of two, at least 16 bytes, that fits the
/// request), which is what makes stale references dangerous and the poison check meaningful. It never frees an
/// array: the memory it holds is the high-water mark of what was rented at once. Thread-safe; one short lock per
/// rent and return, and the poison fill and check run outside it.</para>
/// <para>Double and foreign returns are recorded and otherwise ignored: the array does not go back on the free
/// list, so a buggy caller can never make the pool hand one array to two renters.</para>
/// </remarks>
public sealed class TrackingArrayPool : ArrayPool<byte>
{
    private const int MinimumArrayLength = 16;
    private const int MaxPooledLength = 1 << 30;

    private readonly object _gate = new();
    private readonly Dictionary<byte[], ArrayState> _known = new(ReferenceEqualityComparer.Instance);
    private readonly Stack<byte[]>[] _free = new Stack<byte[]>[31];
    private readonly List<PoolFinding> _findings = [];
    private long _nextId;
    private long _rents;
    private long _returns;
    private long _bytesRented;
    private long _allocated;
    private int _outstanding;

    /// <summary>Creates an empty pool with <paramref name="options"/> (defaults: poison on, stack capture
    /// off).</summary>
    public TrackingArrayPool(TrackingArrayPoolOptions? options = null)
    {
        Options = options ?? TrackingArrayPoolOptions.Default;
        for (int i = 0; i < _free.Length; i++)
            _free[i] = new Stack<byte[]>();
    }

    /// <summary>What this pool checks.</summary>
    public TrackingArrayPoolOptions Options { get; }

    /// <summary>Successful rents so far.</summary>
    public long Rents => Interlocked.Read(ref _rents);

    /// <summary>Accepted returns so far (double and foreign returns are not counted).</summary>
    public long Returns => Interlocked.Read(ref _returns);

    /// <summary>Sum of the lengths of all arrays rented so far.</summary>
    public long BytesRented => Interlocked.Read(ref _bytesRented);

    /// <summary>Arrays created so far; every other rent reused a returned array.</summary>
    public long ArraysAllocated => Interlocked.Read(ref _allocated);

    /// <summary>How many arrays are rented out right now.</summary>
    public int OutstandingCount => Volatile.Read(ref _outstanding);

    /// <summary>The arrays rented out right now, oldest id first.</summary>
    public IReadOnlyList<OutstandingRental> Outstanding
    {
        get
        {
            lock (_gate)
            {
                return
                [
                    .. _known
                        .Values.Where(s => s.Rented)
                        .OrderBy(s => s.Id)
                        .Select(s => new OutstandingRental(s.Id, s.Length, s.RequestedLength, s.RentStack)),
                ];
            }
        }
    }

    /// <summary>The misuse recorded so far: double returns, foreign returns, and writes after return found by a
    /// rent or by <see cref="Verify"/>. Leaks are not events; <see cref="Verify"/> reports them.</summary>
    public IReadOnlyList<PoolFinding> Findings
    {
        get
        {
            lock (_gate)
                return [.. _findings];
        }
    }

    /// <inheritdoc />
    public override byte[] Rent(int minimumLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(minimumLength);
        string? stack = Options.CaptureStackTraces ? new StackTrace(1, fNeedFileInfo: true).ToString() : null;
        int bucket = BucketOf(minimumLength, out int length);
        byte[]? array = null;
        ArrayState? state = null;
        string? previousStack = null;
        bool reused = false;
        lock (_gate)
        {
            if (bucket >= 0 && _free[bucket].TryPop(out array))
            {
                state = _known[array];
                state.Pooled = false;
                previousStack = state.RentStack;
                reused = true;
            }
            else
            {
                array = GC.AllocateUninitializedArray<byte>(length);
                state = new ArrayState(++_nextId, length);
                _known.Add(array, state);
                _allocated++;
            }
            state.Rented = true;
            state.RequestedLength = minimumLength;
            state.RentStack = stack;
            _rents++;
            _bytesRented += length;
            _outstanding++;
        }
        if (reused)
            CheckPoison(array, state, previousStack, "when it was rented again");
        return array;
    }

    /// <inheritdoc />
    /// <remarks><paramref name="clearArray"/> is ignored: returned arrays are always poisoned (when poisoning is
    /// on).</remarks>
    public override void Return(byte[] array, bool clearArray = false)
    {
        ArgumentNullException.ThrowIfNull(array);
        ArrayState? state;
        lock (_gate)
        {
            if (!_known.TryGetValue(array, out state))
            {
                _findings.Add(
                    new PoolFinding(
                        PoolFindingKind.ForeignReturn,
                        0,
                        array.Length,
                        null,
                        $"an array of {array.Length} bytes that this pool never rented was returned to it"
                    )
                );
                return;
            }
            if (!state.Rented)
            {
                _findings.Add(
                    new PoolFinding(
                        PoolFindingKind.DoubleReturn,
                        state.Id,
                        state.Length,
                        state.RentStack,
                        $"array #{state.Id} ({state.Length} bytes) was returned again while it was not rented out (double return)"
                    )
                );
                return;
            }
            state.Rented = false;
            _returns++;
            _outstanding--;
        }
        if (Options.PoisonReturnedArrays)
            array.AsSpan().Fill(Options.PoisonByte);
        int bucket = BucketOf(array.Length, out int length);
        if (bucket < 0 || length != array.Length)
            return; // not reusable by size; kept in the ledger only
        lock (_gate)
        {
            _free[bucket].Push(array);
            state.Pooled = true;
        }
    }

    /// <summary>
    /// Checks every returned array's poison, then reports the counters, the outstanding rentals and every finding: the
    /// recorded ones, new write-after-return findings (also added to <see cref="Findings"/>), and one leak per
    /// outstanding rental. Safe at any time (it holds the pool's lock while it checks, so rents and returns wait); call
    /// it once the code under test is quiescent (writers disposed), or arrays still in use are reported as leaks.
    /// </summary>
    public PoolLedgerReport Verify()
    {
        lock (_gate)
        {
            if (Options.PoisonReturnedArrays)
            {
                // Only arrays on the free list: one being returned right now is not poisoned yet.
                foreach (var (array, state) in _known)
                    if (state.Pooled)
                        CheckPoison(array, state, state.RentStack, "by Verify()", refill: true);
            }
            var outstanding = _known
                .Values.Where(s => s.Rented)
                .OrderBy(s => s.Id)
                .Select(s => new OutstandingRental(s.Id, s.Length, s.RequestedLength, s.RentStack))
                .ToList();
            var findings = new List<PoolFinding>(_findings);
            foreach (var o in outstanding)
                findings.Add(
                    new PoolFinding(
                        PoolFindingKind.Leak,
                        o.ArrayId,
                        o.Size,
                        o.RentStack,
                        $"array #{o.ArrayId} ({o.Size} bytes, {o.RequestedSize} requested) was rented and never returned (leak)"
                    )
                );
            return new PoolLedgerReport(_rents, _returns, _bytesRented, _allocated, outstanding, findings);
        }
    }

    /// <summary>Runs <see cref="Verify"/> and throws a <see cref="PoolLedgerException"/> listing every finding
    /// (with rent stacks when captured) unless the ledger is clean.</summary>
    /// <exception cref="PoolLedgerException">Something leaked or was misused.</exception>
    public void AssertClean()
    {
        var report = Verify();
        if (!report.IsClean)
            throw new PoolLedgerException(report);
    }

    /// <summary>The ledger in one line, or with its findings.</summary>
    public override string ToString() => Verify().ToString();

    private void CheckPoison(byte[] array, ArrayState state, string? lastRentStack, string when, bool refill = false)
    {
        if (!Options.PoisonReturnedArrays)
            return;
        byte poison = Options.PoisonByte;
        ReadOnlySpan<byte> span = array;
        int first = span.IndexOfAnyExcept(poison);
        if (first < 0)
            return;
        int last = span.LastIndexOfAnyExcept(poison);
        int changed = 0;
        for (int i = first; i <= last; i++)
            if (span[i] != poison)
                changed++;
        var finding = new PoolFinding(
            PoolFindingKind.WriteAfterReturn,
            state.Id,
            state.Length,
            lastRentStack,
            $"array #{state.Id} ({state.Length} bytes) was written after it was returned (found {when}): "
                + $"{changed} byte(s) differ from the poison 0x{poison:X2} between offsets {first} and {last}"
        );
        if (refill)
            array.AsSpan().Fill(poison);
        lock (_gate)
            _findings.Add(finding);
    }

    private static int BucketOf(int minimumLength, out int length)
    {
        if (minimumLength > MaxPooledLength)
        {
            length = minimumLength;
            return -1;
        }
        length = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(minimumLength, MinimumArrayLength));
        return BitOperations.Log2((uint)length);
    }

    private sealed class ArrayState(long id, int length)
    {
        public long Id { get; } = id;
        public int Length { get; } = length;
        public bool Rented { get; set; }
        public int RequestedLength { get; set; }
        public string? RentStack { get; set; }
        public bool Pooled { get; set; }
    }
}
