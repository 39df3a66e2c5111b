namespace AmqpConformance.FakeBroker;

/// <summary>Calls <see cref="IIdleTrimmable.TrimIfIdle"/> after every full collection while its pool lives: an object
/// with a finalizer that re-registers itself, so it is found unreachable (and finalized) once per gen2 collection. It
/// holds its pool through a weak GC handle (not a <see cref="WeakReference{T}"/>, whose own finalizer could run first and
/// end the chain), so the pool itself can still be collected; the handle is freed once the pool is gone.</summary>
internal sealed class Gen2IdleTrimmer
{
    private System.Runtime.InteropServices.GCHandle _pool;
    private int _lastGen2 = GC.CollectionCount(2);

    private Gen2IdleTrimmer(IIdleTrimmable pool) =>
        _pool = System.Runtime.InteropServices.GCHandle.Alloc(pool, System.Runtime.InteropServices.GCHandleType.Weak);

    /// <summary>Starts asking <paramref name="pool"/> after each full collection, for as long as it lives.</summary>
    public static void Register(IIdleTrimmable pool) => _ = new Gen2IdleTrimmer(pool);

    /// <summary>Runs after a collection found this object unreachable: a young one's first runs may follow ephemeral
    /// collections, so it trims only when a gen2 collection happened since the last run.</summary>
    ~Gen2IdleTrimmer()
    {
        if (Environment.HasShutdownStarted)
            return;
        if (_pool.Target is not IIdleTrimmable pool)
        {
            _pool.Free();
            return;
        }
        int gen2 = GC.CollectionCount(2);
        if (gen2 != _lastGen2)
        {
            _lastGen2 = gen2;
            pool.TrimIfIdle();
        }
        GC.ReRegisterForFinalize(this);
    }
}
