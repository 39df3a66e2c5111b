namespace AmqpConformance.SelfTest.Zoo;

/// <summary>The class of mistake a zoo writer makes (or <see cref="Correct"/> for the ones that must pass).</summary>
public enum BugClass
{
    /// <summary>Disposal while calls are parked, queued or in flight.</summary>
    Lifecycle = 1,

    /// <summary>A call completes but its bytes are not flushed until something else happens.</summary>
    Visibility = 2,

    /// <summary>Queue capacity and backpressure.</summary>
    QueueFull = 3,

    /// <summary>Behaviour after the output failed.</summary>
    AfterFault = 4,

    /// <summary>Ordering under contention.</summary>
    Ordering = 5,

    /// <summary>Cancellation landing at the wrong moment.</summary>
    Cancellation = 6,

    /// <summary>Frame encoding.</summary>
    WireFormat = 7,

    /// <summary>Method, header, body frames of the right sizes.</summary>
    CommandShape = 8,

    /// <summary>Frames of different commands mixed on the wire.</summary>
    Interleaving = 9,

    /// <summary>Body bytes read too late or from the wrong place.</summary>
    Bodies = 10,

    /// <summary>Rentals and body owners.</summary>
    Pools = 11,

    /// <summary>Correct but unusual: must pass every property.</summary>
    Correct = 0,
}
