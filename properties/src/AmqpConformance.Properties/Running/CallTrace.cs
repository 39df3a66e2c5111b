using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Properties.Running;

/// <summary>The mutable record of one call while a run is in progress; frozen into a <see cref="PublishCall"/> at the end.</summary>
internal sealed class CallTrace
{
    public required int Id { get; init; }
    public required int Publisher { get; init; }
    public required int IndexInPublisher { get; init; }
    public required ushort Channel { get; set; }
    public string RoutingKey => Harness.Verdicts.CallCorrelation.RoutingKeyFor(Id);
    public required byte[] ExpectedBody { get; init; }
    public TimeSpan Started { get; set; }

    /// <summary>Whether the call was made at all (a publisher stops after a hung call; its later calls are never made).</summary>
    public bool Attempted { get; set; }
    public TimeSpan? Ended { get; set; }
    public CallOutcome Outcome { get; set; } = CallOutcome.Pending;
    public string? Error { get; set; }
    public bool Poisoned { get; set; }
    public ulong? PublishSequenceNumber { get; set; }
    public TrackedBodyOwner? Owner { get; set; }

    public void Complete(TimeSpan at, Exception? error)
    {
        Ended = at;
        Outcome = error switch
        {
            null => CallOutcome.Succeeded,
            OperationCanceledException => CallOutcome.Cancelled,
            _ => CallOutcome.Failed,
        };
        Error = error is null ? null : $"{error.GetType().Name}: {error.Message}";
    }

    public PublishCall Freeze() => new()
    {
        Id = Id, Publisher = Publisher, IndexInPublisher = IndexInPublisher, Channel = Channel, ExpectedBody = ExpectedBody,
        Started = Started, Ended = Ended, Outcome = Outcome, Error = Error, PoisonedAfterCompletion = Poisoned,
        PublishSequenceNumber = PublishSequenceNumber,
        HasBodyOwner = Owner is not null, BodyOwnerDisposals = Owner?.Disposals ?? 0, BodyOwnerDisposedAtOutputBytes = Owner?.DisposedAtOutputBytes,
    };
}
