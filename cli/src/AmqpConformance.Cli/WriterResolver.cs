using System.Reflection;
using System.Runtime.Loader;
using AmqpConformance.Harness.Writers;
using AmqpConformance.SelfTest.Zoo;

namespace AmqpConformance.Cli;

/// <summary>Turns a <c>--writer</c> value into a <see cref="FrameWriterFactory"/>: a reference writer's name, a
/// self-test zoo writer's name (<c>Zoo:LazyFlush</c>, <c>Broken:SplitLock</c>: see <c>amqp-conformance selftest</c>),
/// or a writer of the user's own as <c>path/to/Assembly.dll:Namespace.Type</c> (a <see cref="FrameWriterFactory"/> with
/// a public parameterless constructor) or <c>path:Namespace.Type.Member</c> (a public static property or field
/// returning one).</summary>
internal static class WriterResolver
{
    /// <summary>Resolves a --writer value: a reference writer's name, or <c>assembly-path:type</c> /
    /// <c>assembly-path:type.member</c>.</summary>
    public static bool TryResolve(string spec, out FrameWriterFactory? factory, out string? problem)
    {
        factory = WriterModes.FromName(spec)
            ?? ZooWriters
                .All.FirstOrDefault(e => e.Name.Equals(spec.Trim(), StringComparison.OrdinalIgnoreCase))
                ?.Factory
            ?? SoakZoo.FromName(spec.Trim())?.Factory;
        problem = null;
        if (factory is not null)
            return true;
        int colon = spec.LastIndexOf(':');
        if (colon <= 0 || colon == spec.Length - 1)
        {
            problem =
                "unknown writer; expected background, inline, coalescing or <assembly-path>:<type> (your own writer).";
            return false;
        }
        string path = Path.GetFullPath(spec[..colon]);
        string typeName = spec[(colon + 1)..];
        Assembly assembly;
        try
        {
            assembly = AssemblyLoadContext.Default.LoadFromAssemblyPath(path);
        }
        catch (Exception e)
            when (e is FileNotFoundException or FileLoadException or BadImageFormatException or ArgumentException)
        {
            problem = $"cannot load assembly {path}: {e.Message}";
            return false;
        }
        try
        {
            if (assembly.GetType(typeName) is { } type)
            {
                if (!typeof(FrameWriterFactory).IsAssignableFrom(type) || type.IsAbstract)
                {
                    problem = $"{typeName} is not a concrete FrameWriterFactory.";
                    return false;
                }
                if (type.GetConstructor(Type.EmptyTypes) is null)
                {
                    problem = $"{typeName} has no public parameterless constructor.";
                    return false;
                }
                factory = (FrameWriterFactory)Activator.CreateInstance(type)!;
                return true;
            }
            int dot = typeName.LastIndexOf('.');
            if (dot > 0 && assembly.GetType(typeName[..dot]) is { } owner)
            {
                string member = typeName[(dot + 1)..];
                object? value = owner.GetProperty(member, BindingFlags.Public | BindingFlags.Static)?.GetValue(null)
                    ?? owner.GetField(member, BindingFlags.Public | BindingFlags.Static)?.GetValue(null);
                if (value is FrameWriterFactory f)
                {
                    factory = f;
                    return true;
                }
                problem = $"{owner.FullName}.{member} is not a public static FrameWriterFactory property or field.";
                return false;
            }
        }
        catch (Exception e)
            when (e is TargetInvocationException or TypeLoadException or MissingMethodException or FileNotFoundException
            )
        {
            problem = $"cannot create {typeName}: {(e.InnerException ?? e).Message}";
            return false;
        }
        problem = $"no type {typeName} in {path}.";
        return false;
    }
}
