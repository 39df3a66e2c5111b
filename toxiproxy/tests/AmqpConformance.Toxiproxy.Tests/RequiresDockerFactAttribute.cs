using System.Diagnostics;

namespace AmqpConformance.Toxiproxy.Tests;

/// <summary>A fact that runs only where a Docker engine answers <c>docker info</c> within 10 seconds (and the
/// compose plugin answers <c>docker compose version</c>); elsewhere it is skipped with the reason.</summary>
public sealed class RequiresDockerFactAttribute : FactAttribute
{
    private const string NoEngine =
        "Docker engine not available (docker info failed): start Docker to run against real RabbitMQ + Toxiproxy";
    private const string NoCompose =
        "Docker Compose not available (docker compose version failed): install the compose plugin to run against real RabbitMQ + Toxiproxy";

    private static readonly Lazy<string?> Unavailable = new(() =>
        !Succeeds("info") ? NoEngine
        : !Succeeds("compose version") ? NoCompose
        : null
    );

    /// <summary>Sets <see cref="FactAttribute.Skip"/> when Docker is not available.</summary>
    public RequiresDockerFactAttribute()
    {
        if (Unavailable.Value is string reason)
            Skip = reason;
    }

    private static bool Succeeds(string arguments)
    {
        try
        {
            using var process = Process.Start(
                new ProcessStartInfo("docker", arguments)
                {
                    RedirectStandardOutput = true,
                    RedirectStandardError = true,
                    UseShellExecute = false,
                }
            );
            if (process is null)
                return false;
            _ = process.StandardOutput.ReadToEndAsync();
            _ = process.StandardError.ReadToEndAsync();
            if (!process.WaitForExit(TimeSpan.FromSeconds(10)))
            {
                try
                {
                    process.Kill(entireProcessTree: true);
                }
                catch (InvalidOperationException) { } // it exited meanwhile: nothing left to kill
                return false;
            }
            return process.ExitCode == 0;
        }
        catch (Exception e) when (e is System.ComponentModel.Win32Exception or InvalidOperationException)
        {
            return false;
        }
    }
}
