using System.CommandLine;
using AmqpConformance.Cli.Fuzzing;
using AmqpConformance.Properties;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance fuzz broker|proxy-api [--frames N] [--requests N] [--seconds S] [--seed N] [--parallel N]</c>:
/// throws mutated AMQP sessions at an in-process fake broker (<see cref="BrokerFuzzer"/>) or random and mutated HTTP
/// requests at the embedded Toxiproxy API (<see cref="ProxyApiFuzzer"/>), within a count and a time budget, and prints
/// what broke: crashes (the broker's own internal errors), hangs, unhandled exceptions, answers of 500 or more, broken
/// API promises, and memory. Exit 0 when clean, 1 otherwise. Seeded: the report names the seed that replays a run.
/// </summary>
internal static class FuzzCommand
{
    /// <summary>The longest time budget accepted: a week.</summary>
    private const double MaxSeconds = 7 * 24 * 3600;

    public static Command Create()
    {
        var target = new Argument<string>("target")
        {
            Description = "broker: the fake AMQP broker; proxy-api: the Toxiproxy-compatible HTTP API",
        };
        target.AcceptOnlyFromAmong("broker", "proxy-api");
        var frames = new Option<long>("--frames")
        {
            Description = "broker: stop after sending this many frames (before mutation)",
            DefaultValueFactory = _ => 100_000,
        };
        var requests = new Option<long>("--requests")
        {
            Description = "proxy-api: stop after this many requests",
            DefaultValueFactory = _ => 2_000,
        };
        var seconds = new Option<double>("--seconds")
        {
            Description = "stop taking new cases after this many seconds, whatever the count",
            DefaultValueFactory = _ => 300,
        };
        var seed = new Option<int>("--seed")
        {
            Description = "the run's seed (default: random, printed); the same seed replays the same cases",
        };
        var parallel = new Option<int>("--parallel")
        {
            Description = "cases in flight at once",
            DefaultValueFactory = _ => Math.Max(2, Environment.ProcessorCount * 2),
        };
        foreach (Option<long> count in new[] { frames, requests })
            count.Validators.Add(r =>
            {
                if (OptionValues.TryGet(r, out long value) && value < 1)
                    r.AddError($"{r.Option.Name} must be at least 1.");
            });
        seconds.Validators.Add(r =>
        {
            if (OptionValues.TryGet(r, out double value) && value is not (> 0 and <= MaxSeconds))
                r.AddError($"--seconds must be positive and at most {MaxSeconds:0} (a week).");
        });
        parallel.Validators.Add(r =>
        {
            if (OptionValues.TryGet(r, out int value) && value < 1)
                r.AddError("--parallel must be at least 1.");
        });

        var command = new Command(
            "fuzz",
            "Fuzz the fake broker or the Toxiproxy API with seeded, mutated input; exit 1 if anything broke."
        )
        {
            target,
            frames,
            requests,
            seconds,
            seed,
            parallel,
        };
        command.SetAction(
            (parse, cancellationToken) =>
            {
                string which = parse.GetValue(target)!;
                var budget = new FuzzBudget(
                    which == "broker" ? parse.GetValue(frames) : parse.GetValue(requests),
                    TimeSpan.FromSeconds(parse.GetValue(seconds)),
                    parse.GetResult(seed) is not null ? parse.GetValue(seed) : Random.Shared.Next(),
                    parse.GetValue(parallel),
                    HangBound: TimeSpan.FromSeconds(10)
                );
                return RunAsync(which, budget, parse.InvocationConfiguration.Output, cancellationToken);
            }
        );
        return command;
    }

    /// <summary>Runs one fuzz target within <paramref name="budget"/>, prints the report, returns 0 when clean, else
    /// 1.</summary>
    internal static async Task<int> RunAsync(
        string target,
        FuzzBudget budget,
        TextWriter output,
        CancellationToken cancellationToken
    )
    {
        using var monitor = new UnhandledExceptionMonitor(output, "fuzz");
        await output.WriteLineAsync(
            $"fuzz {target}: seed {budget.Seed}, up to {budget.Units} {(target == "broker" ? "frames" : "requests")} or {budget.Duration.TotalSeconds:0.#} s, {budget.Parallel} in flight"
        );
        FuzzReport report =
            target == "broker"
                ? await BrokerFuzzer.RunAsync(budget, monitor, cancellationToken).ConfigureAwait(false)
                : await ProxyApiFuzzer.RunAsync(budget, monitor, cancellationToken).ConfigureAwait(false);
        report.Write(output);
        await output.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        return report.Clean ? 0 : 1;
    }
}
