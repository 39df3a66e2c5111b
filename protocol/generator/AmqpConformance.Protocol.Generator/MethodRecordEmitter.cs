using System.Linq;
using System.Text;

namespace AmqpConformance.Protocol.Generator;

/// <summary>Writes the generated half of one method record: id constants, the <c>IAmqpMethod</c> members, the argument
/// encoder and decoder, and (when an argument is raw bytes) value equality that compares those bytes by
/// content.</summary>
internal static class MethodRecordEmitter
{
    public static string Emit(MethodModel m)
    {
        var s = new StringBuilder(GeneratedHeader.Text);
        if (m.Error is not null)
        {
            s.Append("#error AmqpConformance.Protocol.Generator: ").Append(m.Error).Append('\n');
            return s.ToString();
        }
        int dot = m.Name.IndexOf('.');
        s.Append($"partial record {m.TypeName}\n{{\n");
        s.Append($"    /// <summary>Class id {m.ClassId} ({m.Name.Substring(0, dot)}).</summary>\n");
        s.Append($"    public const ushort ClassIdValue = {m.ClassId};\n");
        s.Append($"    /// <summary>Method id {m.MethodId} ({m.Name.Substring(dot + 1)}).</summary>\n");
        s.Append($"    public const ushort MethodIdValue = {m.MethodId};\n\n");
        s.Append("    /// <inheritdoc/>\n    public override ushort ClassId => ClassIdValue;\n");
        s.Append("    /// <inheritdoc/>\n    public override ushort MethodId => MethodIdValue;\n");
        s.Append($"    /// <inheritdoc/>\n    public override string Name => \"{m.Name}\";\n");
        s.Append(
            $"    /// <inheritdoc/>\n    public override bool HasContent => {(m.HasContent ? "true" : "false")};\n\n"
        );

        s.Append("    internal override void WriteArguments(ref AmqpWriter writer)\n    {\n");
        foreach (ArgumentModel a in m.Arguments)
            s.Append("        ").Append(WireTypeCalls.Write(a.Type, a.Property)).Append('\n');
        s.Append("        writer.Flush();\n    }\n\n");

        if (m.Arguments.Count == 0)
        {
            s.Append($"    internal static {m.TypeName} Read(ref AmqpReader reader) => new();\n");
        }
        else
        {
            s.Append($"    internal static {m.TypeName} Read(ref AmqpReader reader) => new()\n    {{\n");
            foreach (ArgumentModel a in m.Arguments)
                s.Append($"        {a.Property} = {WireTypeCalls.Read(a.Type, a.SpecName)},\n");
            s.Append("    };\n");
        }

        if (m.Arguments.Any(a => a.Type == WireType.Bytes))
            AppendContentEquality(s, m);
        s.Append("}\n");
        return s.ToString();
    }

    /// <summary>Records compare <c>ReadOnlyMemory&lt;byte&gt;</c> by reference; these compare it by content.</summary>
    private static void AppendContentEquality(StringBuilder s, MethodModel m)
    {
        s.Append("\n    /// <summary>Value equality; the binary argument(s) compare by content.</summary>\n");
        s.Append(
            $"    public bool Equals({m.TypeName}? other) =>\n        other is not null\n        && base.Equals(other)"
        );
        foreach (ArgumentModel a in m.Arguments)
        {
            s.Append(
                a.Type == WireType.Bytes
                    ? $"\n        && {a.Property}.Span.SequenceEqual(other.{a.Property}.Span)"
                    : $"\n        && global::System.Collections.Generic.EqualityComparer<{ClrType(a.Type)}>.Default.Equals({a.Property}, other.{a.Property})"
            );
        }
        s.Append(";\n\n    /// <inheritdoc/>\n    public override int GetHashCode()\n    {\n");
        s.Append("        var hash = new global::System.HashCode();\n        hash.Add(base.GetHashCode());\n");
        foreach (ArgumentModel a in m.Arguments)
            s.Append(
                a.Type == WireType.Bytes
                    ? $"        hash.Add({a.Property}.Length);\n"
                    : $"        hash.Add({a.Property});\n"
            );
        s.Append("        return hash.ToHashCode();\n    }\n");
    }

    private static string ClrType(WireType type) =>
        type switch
        {
            WireType.Octet => "byte",
            WireType.Short => "ushort",
            WireType.Long => "uint",
            WireType.LongLong => "ulong",
            WireType.Bit => "bool",
            WireType.ShortString or WireType.LongString => "string",
            _ => "FieldTable",
        };
}
