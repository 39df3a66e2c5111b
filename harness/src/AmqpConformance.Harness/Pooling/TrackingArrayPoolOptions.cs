namespace AmqpConformance.Harness.Pooling;

/// <summary>How much a <see cref="TrackingArrayPool"/> checks.</summary>
public sealed record TrackingArrayPoolOptions
{
    /// <summary>Record the stack of every rent so leaks and misuse say where the array came from.
    /// Costly (a stack walk per rent); off by default.</summary>
    public bool CaptureStackTraces { get; init; }

    /// <summary>Fill returned arrays with <see cref="PoisonByte"/> and check the fill is intact on the next rent and on
    /// <see cref="TrackingArrayPool.Verify"/>; on by default. Off, the pool cannot see writes after return.</summary>
    public bool PoisonReturnedArrays { get; init; } = true;

    /// <summary>The byte returned arrays are filled with (0xDB by default). A body read after its buffer went
    /// back shows up on the wire as a run of this byte.</summary>
    public byte PoisonByte { get; init; } = 0xDB;

    /// <summary>Defaults: poison on, stack capture off.</summary>
    public static TrackingArrayPoolOptions Default { get; } = new();
}
