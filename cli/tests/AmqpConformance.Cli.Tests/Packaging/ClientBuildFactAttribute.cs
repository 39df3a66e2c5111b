namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>A packaging test that needs a RabbitMQ.Client built from PR #1912's branch (its inline frame writer,
/// <c>ConnectionFactory.UseBackgroundFrameWriter</c>): skipped, with the reason, unless <see cref="Variable"/> names
/// that build's RabbitMQ.Client.dll, and when packaging tests are off
/// (<see cref="PackagingFactAttribute.SkipVariable"/>). Such a build cannot be referenced next to RabbitMQ.Client 7.2.2
/// in this repository's own test projects, so it runs where a maintainer has built it (recipe: docs/known-client-defects.md,
/// "Testing a RabbitMQ.Client build").</summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class ClientBuildFactAttribute : FactAttribute
{
    /// <summary>The environment variable naming the RabbitMQ.Client.dll built from PR #1912's branch.</summary>
    public const string Variable = "AMQPC_PR1912_CLIENT";

    /// <summary>The dll <see cref="Variable"/> names, when it is a file.</summary>
    public static string? Dll =>
        Environment.GetEnvironmentVariable(Variable) is { Length: > 0 } path && File.Exists(path)
            ? Path.GetFullPath(path)
            : null;

    /// <summary>Sets <see cref="FactAttribute.Skip"/> unless the build is there and packaging tests are on.</summary>
    public ClientBuildFactAttribute()
    {
        if (Environment.GetEnvironmentVariable(PackagingFactAttribute.SkipVariable) == "1")
            Skip =
                $"{PackagingFactAttribute.SkipVariable}=1: packaging tests (dotnet pack, restore from the packed feed) are turned off.";
        else if (Dll is null)
            Skip = Environment.GetEnvironmentVariable(Variable) is { Length: > 0 } path
                ? $"{Variable}={path} is not a file: it must name a RabbitMQ.Client.dll built from PR #1912's branch."
                : $"Set {Variable} to a RabbitMQ.Client.dll built from PR #1912's branch (docs/known-client-defects.md, \"Testing a RabbitMQ.Client build\") to replay the defects found in it.";
    }
}
