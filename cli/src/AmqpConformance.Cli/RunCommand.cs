using System.CommandLine;
using System.Reflection;
using System.Runtime.Loader;
using AmqpConformance.Harness.Reports;
using AmqpConformance.Harness.Verdicts;
using AmqpConformance.Harness.Writers;
using AmqpConformance.Properties;
using Spectre.Console;

namespace AmqpConformance.Cli;

/// <summary>
/// <c>amqp-conformance run --writer background|inline|coalescing|&lt;assembly-path&gt;:&lt;type&gt; [--writer ...] --cases N
/// [--invariant NAME ...] [--replay seed,gamma,size] [--report DIR]</c>: checks every invariant property against each writer
/// with a progress bar, prints a verdict table (invariant x writer) and the failure reports, writes the artifacts of each
/// failure under DIR/&lt;writer&gt;/&lt;invariant&gt;/. Exit code 0 only if every property holds; 1 on a violation; 2 on bad input.
/// </summary>
/// <remarks>A custom writer is <c>path/to/Assembly.dll:Namespace.Type</c>, where the type is a <see cref="FrameWriterFactory"/>
/// with a public parameterless constructor, or <c>path:Namespace.Type.Member</c>, a public static property or field returning one.</remarks>
internal static class RunCommand
{
    /// <summary>The command with its options.</summary>
    public static Command Create()
    {
        var writer = new Option<string[]>("--writer")
        {
            Description = "background, inline, coalescing (or custom), or <assembly-path>:<type>; repeat for several.",
            Required = true,
            AllowMultipleArgumentsPerToken = true,
        };
        var cases = new Option<int>("--cases")
        {
            Description = "Generated cases per property.",
            DefaultValueFactory = _ => 500,
        };
        var invariant = new Option<string[]>("--invariant")
        {
            Description = "Only these invariants (default: each of them as its own property): " + string.Join(", ", InvariantNames.All) +
                $"; or \"{ConformanceProperties.AllAtOnce}\" to check every invariant on each case in one property (one run per case).",
            AllowMultipleArgumentsPerToken = true,
        };
        var replay = new Option<string?>("--replay")
        {
            Description = "Replay one failing case: the seed,gamma,size printed by a failure.",
        };
        var report = new Option<string?>("--report")
        {
            Description = "Folder for failure artifacts (default: $AMQP_CONFORMANCE_REPORTS or ./reports).",
        };
        var command = new Command("run", "Run the frame-writer conformance properties and print a verdict table.")
        {
            writer, cases, invariant, replay, report,
        };
        command.SetAction((parse, ct) => Task.FromResult(Run(
            parse.GetValue(writer) ?? [], parse.GetValue(cases), parse.GetValue(invariant) ?? [], parse.GetValue(replay), parse.GetValue(report),
            parse.InvocationConfiguration.Output, parse.InvocationConfiguration.Error, ct)));
        return command;
    }

    /// <summary>Runs the check. Returns 0 when every property held, 1 on any violation, 2 on bad input (reason on <paramref name="error"/>).</summary>
    internal static int Run(string[] writers, int cases, string[] invariants, string? replay, string? reportRoot,
        TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        if (cases < 1)
        {
            error.WriteLine($"--cases {cases}: must be at least 1.");
            return 2;
        }
        var factories = new List<FrameWriterFactory>();
        foreach (string spec in writers)
        {
            if (!TryResolveWriter(spec, out var factory, out string? problem))
            {
                error.WriteLine($"--writer {spec}: {problem}");
                return 2;
            }
            factories.Add(factory!);
        }
        if (factories.Count == 0)
        {
            error.WriteLine("--writer: name at least one writer (background, inline, coalescing or <assembly-path>:<type>).");
            return 2;
        }
        var unknown = invariants.Where(i => !InvariantNames.All.Contains(i) && i != ConformanceProperties.AllAtOnce).ToList();
        if (unknown.Count > 0)
        {
            error.WriteLine($"--invariant {string.Join(", ", unknown)}: unknown; known: {string.Join(", ", InvariantNames.All)}.");
            return 2;
        }
        ReplayToken? token = null;
        if (replay is not null)
        {
            try { token = ReplayToken.Parse(replay); }
            catch (FormatException e)
            {
                error.WriteLine($"--replay: {e.Message}");
                return 2;
            }
        }
        IReadOnlyList<string> selected = invariants.Length == 0 ? InvariantNames.All
            : [.. InvariantNames.All.Append(ConformanceProperties.AllAtOnce).Where(invariants.Contains)];
        string root = reportRoot is null ? ConformanceArtifacts.DefaultRoot() : Path.GetFullPath(reportRoot);

        var console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(output) });
        var outcomes = new Dictionary<(string Writer, string Invariant), PropertyOutcome>();
        console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn())
            .Start(progress =>
            {
                foreach (var factory in factories)
                {
                    var task = progress.AddTask(Markup.Escape(factory.Name), maxValue: (double)selected.Count * (token is null ? cases : 1));
                    int done = 0;
                    foreach (string inv in selected)
                    {
                        if (cancellationToken.IsCancellationRequested) return;
                        int before = done;
                        var options = new PropertyRunOptions
                        {
                            MaxTest = cases, Replay = token,
                            OnCase = n => task.Value = before + n,
                        };
                        var outcome = ConformanceProperties.Check(factory, inv, options);
                        done += token is null ? cases : 1;
                        task.Value = done;
                        outcomes[(factory.Name, inv)] = OutcomeArtifacts.Write(outcome, factory.Name, root,
                            $"paste: amqp-conformance run --writer {WriterArgument(factory, writers)} --invariant {inv} --replay {outcome.Replay}");
                    }
                }
            });

        var table = new Table().Title("Verdicts").AddColumn("invariant");
        foreach (var f in factories) table.AddColumn(Markup.Escape(f.Name));
        foreach (string inv in selected)
        {
            var cells = new List<string> { inv };
            foreach (var f in factories)
            {
                if (!outcomes.TryGetValue((f.Name, inv), out var o)) cells.Add("[grey]not run[/]");
                else if (o.Holds) cells.Add($"[green]holds[/] ({o.CasesRun} cases, {o.Elapsed.TotalSeconds:0.0} s)");
                else cells.Add($"[red]VIOLATED[/] after {o.CasesRun} case(s)");
            }
            table.AddRow(cells.ToArray());
        }
        console.Write(table);
        foreach (var o in outcomes.Values.Where(o => !o.Holds))
        {
            output.WriteLine();
            output.WriteLine(o.Describe($"paste: amqp-conformance run --writer {WriterArgument(factories.First(f => f.Name == o.Subject), writers)} --invariant {o.Invariant} --replay {o.Replay}"));
        }
        bool allHold = outcomes.Count == factories.Count * selected.Count && outcomes.Values.All(o => o.Holds);
        output.WriteLine(allHold ? "All properties hold." : "Some properties do not hold (or did not run).");
        return allHold ? 0 : 1;
    }

    /// <summary>Resolves a --writer value: a reference writer's name, or <c>assembly-path:type</c> / <c>assembly-path:type.member</c>.</summary>
    internal static bool TryResolveWriter(string spec, out FrameWriterFactory? factory, out string? problem)
    {
        factory = WriterModes.FromName(spec);
        problem = null;
        if (factory is not null) return true;
        int colon = spec.LastIndexOf(':');
        if (colon <= 0 || colon == spec.Length - 1)
        {
            problem = "unknown writer; expected background, inline, coalescing (custom) or <assembly-path>:<type>.";
            return false;
        }
        string path = Path.GetFullPath(spec[..colon]);
        string typeName = spec[(colon + 1)..];
        Assembly assembly;
        try
        {
            assembly = AssemblyLoadContext.Default.LoadFromAssemblyPath(path);
        }
        catch (Exception e) when (e is FileNotFoundException or FileLoadException or BadImageFormatException or ArgumentException)
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
        catch (Exception e) when (e is TargetInvocationException or TypeLoadException or MissingMethodException or FileNotFoundException)
        {
            problem = $"cannot create {typeName}: {(e.InnerException ?? e).Message}";
            return false;
        }
        problem = $"no type {typeName} in {path}.";
        return false;
    }

    private static string WriterArgument(FrameWriterFactory factory, string[] specs) =>
        specs.FirstOrDefault(s => WriterModes.FromName(s) == factory) ?? specs.FirstOrDefault(s => s.Contains(':', StringComparison.Ordinal)) ?? factory.Name;
}
