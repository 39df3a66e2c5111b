using System.Collections.Immutable;
using System.Linq;
using System.Text;

namespace AmqpConformance.Protocol.Generator;

/// <summary>Writes <c>MethodCodec</c>'s table of every method record: the decoder switch, <c>NameOf</c> and
/// <c>KnownMethodTypes</c>, ordered by class id, then method id. Two records claiming one id pair fail the
/// build.</summary>
internal static class MethodTableEmitter
{
    public static string Emit(ImmutableArray<MethodModel> methods)
    {
        var ordered = methods.OrderBy(m => m.Key).ToList();
        var s = new StringBuilder(GeneratedHeader.Text);
        foreach (var clash in ordered.GroupBy(m => m.Key).Where(g => g.Count() > 1))
            s.Append(
                $"#error AmqpConformance.Protocol.Generator: {string.Join(" and ", clash.Select(m => m.TypeName))} claim the same ids ({clash.First().ClassId}, {clash.First().MethodId})\n"
            );

        s.Append("partial class MethodCodec\n{\n");
        s.Append(
            "    private static AmqpMethod ReadArguments(ushort classId, ushort methodId, ref AmqpReader reader) => ((uint)classId << 16 | methodId) switch\n    {\n"
        );
        foreach (MethodModel m in ordered)
            s.Append($"        0x{m.Key:X8} => {m.TypeName}.Read(ref reader),\n");
        s.Append("        _ => throw UnknownMethod(classId, methodId),\n    };\n\n");

        s.Append(
            "    /// <summary>The spec name of a method (e.g. \"basic.publish\"), or null if the ids are unknown.</summary>\n"
        );
        s.Append(
            "    public static string? NameOf(ushort classId, ushort methodId) => ((uint)classId << 16 | methodId) switch\n    {\n"
        );
        foreach (MethodModel m in ordered)
            s.Append($"        0x{m.Key:X8} => \"{m.Name}\",\n");
        s.Append("        _ => null,\n    };\n\n");

        s.Append(
            "    /// <summary>The record type of every known method, by class id then method id (e.g. for data-driven tests).</summary>\n"
        );
        s.Append(
            "    public static global::System.Collections.Generic.IReadOnlyList<global::System.Type> KnownMethodTypes { get; } =\n    [\n"
        );
        foreach (MethodModel m in ordered)
            s.Append($"        typeof({m.TypeName}),\n");
        s.Append("    ];\n}\n");
        return s.ToString();
    }
}
