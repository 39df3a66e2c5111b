namespace AmqpConformance.Properties.Running;

/// <summary>What a soak measured after one round, with the writer idle (every call of the round completed and its
/// frames received by the broker).</summary>
/// <param name="Round">The round, from 1.</param>
/// <param name="Elapsed">Real time since the soak started.</param>
/// <param name="Calls">Calls completed so far.</param>
/// <param name="OutstandingRentals">Arrays rented from the writer's pool and not returned.</param>
/// <param name="BytesHeld">The sizes of those arrays together: the pooled bytes the writer holds while idle.</param>
/// <param name="TransportBacklog">Bytes the writer committed that the transport has not yet passed to the broker
/// (the output queue's length).</param>
/// <param name="RoundMs">How long the round's calls took, stall included.</param>
public sealed record SoakSample(
    int Round,
    TimeSpan Elapsed,
    long Calls,
    int OutstandingRentals,
    long BytesHeld,
    long TransportBacklog,
    double RoundMs
);
