namespace AmqpConformance.Properties.Running;

/// <summary>How a soak runs (<see cref="SoakRunner"/>): one writer over one connection for <see cref="Duration"/>,
/// in rounds of <see cref="Publishers"/> concurrent publishers making <see cref="CallsPerPublisher"/> calls each, the
/// transport stalled for <see cref="StallFor"/> at the start of every <see cref="StallEvery"/>-th round.</summary>
public sealed record SoakOptions
{
    /// <summary>How long the soak drives calls (a round started before the end runs to its end).</summary>
    public TimeSpan Duration { get; init; } = TimeSpan.FromMinutes(10);

    /// <summary>Concurrent publishers per round; at most <see cref="QueueCapacity"/>, so a round's calls in flight fit
    /// the writer's queue.</summary>
    public int Publishers { get; init; } = 8;

    /// <summary>Calls each publisher makes, one after the other, per round.</summary>
    public int CallsPerPublisher { get; init; } = 32;

    /// <summary>Body length of every publish (one body frame).</summary>
    public int BodyLength { get; init; } = 64;

    /// <summary>The writer's <c>WriterContext.QueueCapacity</c>.</summary>
    public int QueueCapacity { get; init; } = 128;

    /// <summary>frame_max of the connection.</summary>
    public int FrameMax { get; init; } = 131_072;

    /// <summary>Every how many rounds the transport is stalled (0: never).</summary>
    public int StallEvery { get; init; } = 10;

    /// <summary>How long a stall holds the transport before it is released.</summary>
    public TimeSpan StallFor { get; init; } = TimeSpan.FromMilliseconds(50);

    /// <summary>How long a round's calls (stall included) may take before the writer counts as having stopped
    /// completing calls.</summary>
    public TimeSpan RoundTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>How many samples the soak keeps at most: when it has more, every other one is dropped (the first and
    /// the latest always stay), so a long soak keeps an even spread over its whole run.</summary>
    public int MaxSamples { get; init; } = 600;

    /// <summary>The defaults, for <paramref name="duration"/>.</summary>
    public static SoakOptions For(TimeSpan duration) => new() { Duration = duration };
}
