namespace AmqpConformance.Harness.Verdicts;

/// <summary>Broker: the fake broker, validating like RabbitMQ 3.x, accepted the writer's stream: no connection error
/// (what RabbitMQ would close the connection for) and no strict-profile finding (what RabbitMQ lets through but an
/// atomic writer must not do). A frame cut short by an injected transport fault is excused.</summary>
public sealed class BrokerChecker() : InvariantChecker(InvariantNames.Broker)
{
    /// <summary>The broker's rule for a stream that ended inside a frame.</summary>
    public const string TruncatedFrameRule = "truncated-frame";

    private protected override void Judge(ConformanceEvidence evidence, WireAssembly wire, ViolationList v)
    {
        foreach (var finding in evidence.Findings)
        {
            if (
                finding.Rule == TruncatedFrameRule
                && evidence.Fault is { } fault
                && !fault.Description.StartsWith(BrokerClosedPrefix, StringComparison.Ordinal)
            )
                continue;
            string what = finding.ClosedConnection
                ? $"RabbitMQ would close the connection{(finding.ReplyCode != 0 ? $" with {finding.ReplyCode}" : "")}"
                : "strict profile";
            v.Add(finding.Rule, $"{what}: {finding.Message}", finding.Sequence >= 0 ? [finding.Sequence] : null);
        }
    }

    /// <summary>How a fault record caused by the broker closing the connection starts; such a fault excuses nothing
    /// here.</summary>
    public const string BrokerClosedPrefix = "the broker closed the connection";
}
