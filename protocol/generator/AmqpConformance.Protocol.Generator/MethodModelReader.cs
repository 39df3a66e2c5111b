using System.Collections.Generic;
using System.Linq;
using System.Text;
using Microsoft.CodeAnalysis;

namespace AmqpConformance.Protocol.Generator;

/// <summary>Reads a <see cref="MethodModel"/> off a record marked <c>[AmqpMethod]</c>: the attribute's ids, name and
/// content flag, and every instance property with an init accessor as an argument, in declaration order (those of a
/// shared abstract base record between it and <c>AmqpMethod</c> first).</summary>
internal static class MethodModelReader
{
    private const string Namespace = "AmqpConformance.Protocol";

    public static MethodModel Read(INamedTypeSymbol record, AttributeData attribute)
    {
        var args = attribute.ConstructorArguments;
        ushort classId = (ushort)args[0].Value!;
        ushort methodId = (ushort)args[1].Value!;
        string name = (string)args[2].Value!;
        bool hasContent = attribute.NamedArguments.Any(a => a.Key == "HasContent" && a.Value.Value is true);

        var arguments = new List<ArgumentModel>();
        string? error = null;
        // Arguments a shared base record declares (say CloseMethod) come first, then the record's own.
        var declaringTypes = new List<INamedTypeSymbol>();
        for (
            INamedTypeSymbol? t = record;
            t is not null && t.ToDisplayString() != Namespace + ".AmqpMethod";
            t = t.BaseType
        )
            declaringTypes.Insert(0, t);
        var properties = declaringTypes.SelectMany(t =>
            t.GetMembers()
                .OfType<IPropertySymbol>()
                .Where(p => !p.IsStatic && p.SetMethod is { IsInitOnly: true } && p.Locations.Any(l => l.IsInSource))
                .OrderBy(p => p.Locations[0].SourceSpan.Start)
        );
        foreach (IPropertySymbol property in properties)
        {
            WireType? type = WireTypeOf(property);
            if (type is null)
            {
                error ??=
                    $"{record.Name}.{property.Name}: a method argument must be byte, ushort, uint, ulong, bool, string, "
                    + $"ReadOnlyMemory<byte> or FieldTable, not {property.Type.ToDisplayString()}";
                continue;
            }
            string specName =
                Attribute(property, "SpecNameAttribute")?.ConstructorArguments[0].Value as string
                ?? KebabCase(property.Name);
            arguments.Add(new ArgumentModel(property.Name, specName, type.Value));
        }
        return new MethodModel(
            record.Name,
            classId,
            methodId,
            name,
            hasContent,
            new EquatableArray<ArgumentModel>(arguments),
            error
        );
    }

    private static WireType? WireTypeOf(IPropertySymbol property)
    {
        ITypeSymbol type = property.Type;
        switch (type.SpecialType)
        {
            case SpecialType.System_Byte:
                return WireType.Octet;
            case SpecialType.System_UInt16:
                return WireType.Short;
            case SpecialType.System_UInt32:
                return WireType.Long;
            case SpecialType.System_UInt64:
                return WireType.LongLong;
            case SpecialType.System_Boolean:
                return WireType.Bit;
            case SpecialType.System_String:
                return Attribute(property, "LongStringAttribute") is null ? WireType.ShortString : WireType.LongString;
        }
        string display = type.ToDisplayString();
        if (display == "System.ReadOnlyMemory<byte>")
            return WireType.Bytes;
        if (display == Namespace + ".FieldTable")
            return WireType.Table;
        return null;
    }

    private static AttributeData? Attribute(ISymbol symbol, string name) =>
        symbol.GetAttributes().FirstOrDefault(a => a.AttributeClass?.ToDisplayString() == Namespace + "." + name);

    /// <summary>"VersionMajor" to "version-major", as the spec names arguments.</summary>
    private static string KebabCase(string pascal)
    {
        var name = new StringBuilder(pascal.Length + 4);
        for (int i = 0; i < pascal.Length; i++)
        {
            char c = pascal[i];
            if (char.IsUpper(c) && i > 0)
                name.Append('-');
            name.Append(char.ToLowerInvariant(c));
        }
        return name.ToString();
    }
}
