namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>Projects made by <c>dotnet new amqp-conformance</c> from the packed feed, as a client repository makes
/// them.</summary>
internal static class TemplateProjects
{
    /// <summary>The adapter's environment variable for ConnectionFactory.UseBackgroundFrameWriter (the template's
    /// RabbitMqClientAdapter.BackgroundWriterVariable).</summary>
    public const string BackgroundWriterVariable = "AMQP_CONFORMANCE_RABBITMQ_BACKGROUND_WRITER";

    /// <summary>A project made by <c>dotnet new amqp-conformance -n <paramref name="name"/></c> in a fresh folder
    /// <paramref name="folder"/> under <paramref name="feed"/>'s root, with the template installed in a hive of its own;
    /// and the environment to build and test it in (three cases per property, the client's default frame
    /// writer).</summary>
    public static async Task<(string Work, string Project, Dictionary<string, string?> Environment)> CreateAsync(
        PackedFeed feed,
        string folder,
        string name
    )
    {
        await feed.EnsurePackedAsync();
        string work = Directory.CreateDirectory(Path.Combine(feed.Root, folder)).FullName;
        string hive = Path.Combine(work, "hive");
        await feed.WriteNugetConfigAsync(work);
        Dictionary<string, string?> environment = feed.ClientEnvironment();
        environment["AMQP_CONFORMANCE_CASES"] = "3";
        environment[BackgroundWriterVariable] = null;
        ProcessResult install = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["new", "install", feed.PackagePath("AmqpConformance.Templates"), "--debug:custom-hive", hive],
            work,
            TimeSpan.FromMinutes(5),
            environment
        );
        Assert.True(install.ExitCode == 0, $"dotnet new install failed ({install.ExitCode}):\n{install.Output}");
        ProcessResult create = await ProcessRun.RunAsync(
            ProcessRun.DotnetHost,
            ["new", "amqp-conformance", "-n", name, "--debug:custom-hive", hive],
            work,
            TimeSpan.FromMinutes(5),
            environment
        );
        Assert.True(create.ExitCode == 0, $"dotnet new amqp-conformance failed ({create.ExitCode}):\n{create.Output}");
        return (work, Path.Combine(work, name), environment);
    }
}
