using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace AmqpConformance.Protocol.Generator;

/// <summary>
/// The one source of truth for AMQP method identities: each record in AmqpConformance.Protocol/Methods states its class
/// id, method id, spec name and content flag once, in <c>[AmqpMethod]</c>, and its arguments once, as init properties
/// in wire order. From those this generator writes, on every build, the record's id constants, <c>IAmqpMethod</c>
/// members, encoder and decoder (<c>{Record}.g.cs</c>) and <c>MethodCodec</c>'s table (<c>MethodCodec.Table.g.cs</c>).
/// </summary>
[Generator(LanguageNames.CSharp)]
public sealed class MethodRecordGenerator : IIncrementalGenerator
{
    /// <summary>The attribute that marks a method record.</summary>
    public const string AttributeName = "AmqpConformance.Protocol.AmqpMethodAttribute";

    /// <inheritdoc/>
    public void Initialize(IncrementalGeneratorInitializationContext context)
    {
        IncrementalValuesProvider<MethodModel> methods = context.SyntaxProvider.ForAttributeWithMetadataName(
            AttributeName,
            static (node, _) => node is RecordDeclarationSyntax,
            static (ctx, _) => MethodModelReader.Read((INamedTypeSymbol)ctx.TargetSymbol, ctx.Attributes[0])
        );

        context.RegisterSourceOutput(methods, static (output, method) =>
            output.AddSource($"{method.TypeName}.g.cs", MethodRecordEmitter.Emit(method))
        );
        context.RegisterSourceOutput(methods.Collect(), static (output, all) =>
            output.AddSource("MethodCodec.Table.g.cs", MethodTableEmitter.Emit(all))
        );
    }
}
