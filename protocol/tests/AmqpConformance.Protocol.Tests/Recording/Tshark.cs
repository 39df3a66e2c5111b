using System.Diagnostics;
using System.Globalization;
using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>Runs tshark on a capture and lists the AMQP frames it dissects.</summary>
internal static class Tshark
{
    public static string? Path { get; } =
        (Environment.GetEnvironmentVariable("PATH") ?? "")
            .Split(System.IO.Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(dir => System.IO.Path.Combine(dir, "tshark"))
            .FirstOrDefault(File.Exists);

    /// <summary>One AMQP frame as tshark's fields show it; Class/Method are 0 for frames that are not
    /// methods.</summary>
    public sealed record DissectedFrame(int Type, int Channel, long Length, int Class, int Method);

    /// <summary>The frame as tshark should dissect it, from the log's record.</summary>
    public static DissectedFrame Expected(FrameRecord frame) =>
        new(
            (int)frame.Type,
            frame.Channel,
            frame.Size,
            frame.Type == FrameType.Method ? frame.ClassId : 0,
            frame.Type == FrameType.Method ? frame.MethodId : 0
        );

    public static async Task<List<DissectedFrame>> DissectAsync(string pcapPath)
    {
        var start = new ProcessStartInfo(Path ?? throw new InvalidOperationException("tshark is not installed"))
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (
            string arg in (string[])
                [
                    "-r",
                    pcapPath,
                    "-Y",
                    "amqp",
                    "-T",
                    "fields",
                    "-E",
                    "occurrence=a",
                    "-E",
                    "aggregator=;",
                    "-e",
                    "amqp.type",
                    "-e",
                    "amqp.channel",
                    "-e",
                    "amqp.length",
                    "-e",
                    "amqp.method.class",
                    "-e",
                    "amqp.method.method",
                ]
        )
            start.ArgumentList.Add(arg);
        using var process = Process.Start(start)!;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        Task<string> stdout = process.StandardOutput.ReadToEndAsync(timeout.Token);
        Task<string> stderr = process.StandardError.ReadToEndAsync(timeout.Token);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException("tshark did not finish within 60 s");
        }
        Assert.True(process.ExitCode == 0, $"tshark exited with {process.ExitCode}: {await stderr}");

        var frames = new List<DissectedFrame>();
        foreach (string line in (await stdout).Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] columns = line.Split('\t');
            if (columns[0].Length == 0)
                continue; // the protocol header packet: AMQP, but no frame
            // A packet may carry several frames; each field lists its values in frame order (";"-separated).
            // Method class/method only occur for method frames, so they are matched up in order.
            string[] types = columns[0].Split(';'),
                channels = columns[1].Split(';'),
                lengths = columns[2].Split(';');
            Queue<string> classes = new(Split(columns[3])),
                methods = new(Split(columns[4]));
            for (int i = 0; i < types.Length; i++)
            {
                int type = int.Parse(types[i], CultureInfo.InvariantCulture);
                bool isMethod = type == (int)FrameType.Method;
                frames.Add(
                    new DissectedFrame(
                        type,
                        int.Parse(channels[i], CultureInfo.InvariantCulture),
                        long.Parse(lengths[i], CultureInfo.InvariantCulture),
                        isMethod ? int.Parse(classes.Dequeue(), CultureInfo.InvariantCulture) : 0,
                        isMethod ? int.Parse(methods.Dequeue(), CultureInfo.InvariantCulture) : 0
                    )
                );
            }
        }
        return frames;
    }

    private static string[] Split(string column) => column.Length == 0 ? [] : column.Split(';');
}
