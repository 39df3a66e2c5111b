using System.Runtime.CompilerServices;

namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>Where the interop client scripts and their dependencies live:
/// <c>fakebroker/tests/interop/{node,python}</c>, found from this source file's path (the tests run on the machine that
/// built them).</summary>
internal static class InteropScripts
{
    public static string Root { get; } = Path.GetFullPath(Path.Combine(ThisDirectory(), "..", "..", "interop"));

    public static string NodeDirectory => Path.Combine(Root, "node");
    public static string NodeScript => Path.Combine(NodeDirectory, "interop.js");
    public static string PythonScript => Path.Combine(Root, "python", "interop.py");

    /// <summary>Debian's python3, which has python3-pika (a pyenv python3 earlier on PATH may not).</summary>
    public const string Python = "/usr/bin/python3";

    public static string? FindOnPath(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "")
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(dir => Path.Combine(dir, program))
            .FirstOrDefault(File.Exists);

    /// <summary>Null when the amqplib client can run; otherwise why not.</summary>
    public static string? AmqplibMissing()
    {
        if (FindOnPath("node") is null)
            return "node is not installed (the amqplib interop test needs Node.js 18+)";
        if (!File.Exists(Path.Combine(NodeDirectory, "node_modules", "amqplib", "package.json")))
            return $"amqplib is not installed: run `npm ci` in {NodeDirectory} (.ci/run does)";
        return null;
    }

    private static string? _pikaMissing;
    private static bool _pikaChecked;

    /// <summary>Null when the pika client can run; otherwise why not.</summary>
    public static string? PikaMissing()
    {
        if (_pikaChecked)
            return _pikaMissing;
        _pikaChecked = true;
        if (!File.Exists(Python))
            return _pikaMissing =
                $"{Python} is missing (the pika interop test uses Debian's python3 with python3-pika)";
        ScriptResult probe = ScriptRunner.Run(Python, ["-c", "import pika"], TimeSpan.FromSeconds(20));
        return _pikaMissing =
            probe.ExitCode == 0
                ? null
                : $"pika is not importable by {Python}: apt-get install python3-pika (.ci/run does)";
    }

    private static string ThisDirectory([CallerFilePath] string path = "") => Path.GetDirectoryName(path)!;
}
