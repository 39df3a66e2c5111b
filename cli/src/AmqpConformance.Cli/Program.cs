using AmqpConformance.Cli;

return await CliApplication.RunAsync(args, Console.Out, Console.Error);
