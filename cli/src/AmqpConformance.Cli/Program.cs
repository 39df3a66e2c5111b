using System.CommandLine;
using AmqpConformance.Cli;

var root = new RootCommand("amqp-conformance: fake AMQP 0-9-1 broker, fault proxy and frame-writer conformance runner.");
foreach (Command command in CliCommands.All())
    root.Subcommands.Add(command);
return await root.Parse(args).InvokeAsync();
