using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Packaging;

/// <summary>AmqpConformance.Protocol is usable alone: it references none of the other AmqpConformance assemblies, so a
/// consumer of it has no writer, fault or verdict types in reach.</summary>
public sealed class StandsAloneTests
{
    [Fact]
    public void The_protocol_assembly_references_no_other_AmqpConformance_assembly()
    {
        var protocol = typeof(FrameLog).Assembly;
        Assert.Equal(typeof(MethodCodec).Assembly, protocol);
        var ours = protocol
            .GetReferencedAssemblies()
            .Where(a => a.Name!.StartsWith("AmqpConformance.", StringComparison.Ordinal))
            .ToList();
        Assert.True(ours.Count == 0, "AmqpConformance.Protocol references " + string.Join(", ", ours));
        Assert.DoesNotContain(protocol.GetExportedTypes(), t =>
            t.Namespace is { } ns
            && (
                ns.Contains(".Writers", StringComparison.Ordinal)
                || ns.Contains(".Faults", StringComparison.Ordinal)
                || ns.Contains(".Verdicts", StringComparison.Ordinal)
            )
        );
    }
}
