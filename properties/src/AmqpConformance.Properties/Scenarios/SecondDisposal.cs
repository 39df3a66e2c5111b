namespace AmqpConformance.Properties.Scenarios;

/// <summary>Whether, and how, the harness calls a case's <c>DisposeAsync</c> a second time. Disposing twice must be
/// harmless (the <c>IFrameWriter</c> contract, as for any <see cref="IAsyncDisposable"/>): the second call returns
/// without error, and nothing is released, written or completed twice.</summary>
public enum SecondDisposal
{
    /// <summary>DisposeAsync is called once.</summary>
    None = 0,

    /// <summary>A second call once the first has returned (a <c>Close()</c> followed by <c>await using</c>'s
    /// own).</summary>
    AfterFirst = 1,

    /// <summary>Two calls at once (two owners tearing the connection down together).</summary>
    Concurrent = 2,
}
