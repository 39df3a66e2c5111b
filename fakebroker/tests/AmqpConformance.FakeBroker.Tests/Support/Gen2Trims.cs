namespace AmqpConformance.FakeBroker.Tests.Support;

/// <summary>Drives a pool's <see cref="Gen2IdleTrimmer"/> in a test.</summary>
internal static class Gen2Trims
{
    /// <summary>Collects fully until <paramref name="trimmed"/> holds, five rounds at most. The trimmer runs from a
    /// finalizer after a gen2 collection, and a young trimmer may first be finalized after ephemeral ones, so it takes a
    /// round or two before it has seen a gen2 (each <see cref="GC.Collect()"/> is one).</summary>
    public static void CollectUntil(Func<bool> trimmed)
    {
        for (int round = 0; round < 5 && !trimmed(); round++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
    }
}
