namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// A fact that packs, restores and installs real NuGet packages (minutes, not seconds). Skipped with the reason when
/// the environment sets <c>AMQPC_SKIP_PACKAGING=1</c>.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class PackagingFactAttribute : FactAttribute
{
    /// <summary>The environment variable that turns the packaging tests off.</summary>
    public const string SkipVariable = "AMQPC_SKIP_PACKAGING";

    /// <summary>Sets <see cref="FactAttribute.Skip"/> when <see cref="SkipVariable"/> is 1.</summary>
    public PackagingFactAttribute()
    {
        if (Environment.GetEnvironmentVariable(SkipVariable) == "1")
        {
            Skip =
                $"{SkipVariable}=1: packaging tests (dotnet pack, restore from the packed feed, dotnet tool install) are turned off.";
        }
    }
}

/// <summary>A theory that packs, restores and installs real NuGet packages; skipped as
/// <see cref="PackagingFactAttribute"/> is.</summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class PackagingTheoryAttribute : TheoryAttribute
{
    /// <summary>Sets <see cref="FactAttribute.Skip"/> when <see cref="PackagingFactAttribute.SkipVariable"/> is
    /// 1.</summary>
    public PackagingTheoryAttribute()
    {
        if (Environment.GetEnvironmentVariable(PackagingFactAttribute.SkipVariable) == "1")
        {
            Skip =
                $"{PackagingFactAttribute.SkipVariable}=1: packaging tests (dotnet pack, restore from the packed feed, dotnet tool install) are turned off.";
        }
    }
}
