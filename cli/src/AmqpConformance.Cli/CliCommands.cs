using System.CommandLine;

namespace AmqpConformance.Cli;

/// <summary>The subcommands of amqp-conformance, one file each.</summary>
internal static class CliCommands
{
    public static IEnumerable<Command> All()
    {
        yield return BrokerCommand.Create();
        yield return ProxyCommand.Create();
        yield return RunCommand.Create();
        yield return FuzzCommand.Create();
        yield return SelftestCommand.Create();
        yield return MergeCommand.Create();
    }
}
