using System.Reflection;
using AmqpConformance.Cli.Tests.Packaging;
using PublicApiGenerator;

namespace AmqpConformance.Cli.Tests.Layout;

/// <summary>The public API of every shipped package is pinned in <c>PublicAPI.txt</c> beside its project file, so a change to it
/// is a deliberate edit a reviewer sees, never a side effect. On a difference the test writes what it found to
/// <c>PublicAPI.received.txt</c> beside it (ignored by git) and fails naming both files; to accept the change, run the tests
/// with <c>AMQPC_ACCEPT_API=1</c>, which overwrites <c>PublicAPI.txt</c>, and commit it. Read from the net10.0 build.</summary>
public sealed class PublicApiTests
{
    /// <summary>Each shipped package: a type of its assembly, and its project folder relative to the repository root.</summary>
    public static TheoryData<string, string> Packages { get; } = new()
    {
        { typeof(Protocol.AmqpConstants).AssemblyQualifiedName!, "protocol/src/AmqpConformance.Protocol" },
        { typeof(FakeBroker.BrokerQueue).AssemblyQualifiedName!, "fakebroker/src/AmqpConformance.FakeBroker" },
        { typeof(Harness.Writers.IFrameWriter).AssemblyQualifiedName!, "harness/src/AmqpConformance.Harness" },
        { typeof(Toxiproxy.ToxiproxyClient).AssemblyQualifiedName!, "toxiproxy/src/AmqpConformance.Toxiproxy" },
        { typeof(Toxiproxy.EmbeddedToxiproxy).AssemblyQualifiedName!, "toxiproxy/src/AmqpConformance.Toxiproxy.Server" },
        { typeof(Properties.ConformanceProperties).AssemblyQualifiedName!, "properties/src/AmqpConformance.Properties" },
        { typeof(Suites.FrameWriterConformanceSuite).AssemblyQualifiedName!, "suites/src/AmqpConformance.Suites" },
    };

    [Theory]
    [MemberData(nameof(Packages))]
    public void The_public_api_is_the_one_pinned_beside_the_project(string anchorType, string projectFolder)
    {
        var assembly = Type.GetType(anchorType, throwOnError: true)!.Assembly;
        string api = Normalize(assembly.GeneratePublicApi(new ApiGeneratorOptions { ExcludeAttributes = ["System.Runtime.Versioning.TargetFrameworkAttribute", "System.Runtime.CompilerServices.InternalsVisibleToAttribute"] }));
        string folder = Path.Combine(RepositoryRoot.Find(), projectFolder);
        string pinned = Path.Combine(folder, "PublicAPI.txt");
        string received = Path.Combine(folder, "PublicAPI.received.txt");
        if (Environment.GetEnvironmentVariable("AMQPC_ACCEPT_API") == "1")
        {
            File.WriteAllText(pinned, api);
            File.Delete(received);
            return;
        }
        string expected = File.Exists(pinned) ? Normalize(File.ReadAllText(pinned)) : "";
        if (expected == api)
        {
            File.Delete(received);
            return;
        }
        File.WriteAllText(received, api);
        Assert.Fail($"The public API of {assembly.GetName().Name} differs from {Relative(pinned)} ({FirstDifference(expected, api)}). " +
            $"What the build has is in {Relative(received)}. If the change is meant, run the tests with AMQPC_ACCEPT_API=1 and commit " +
            "PublicAPI.txt; if not, a public member changed by accident.");
    }

    private static string Normalize(string text) => text.Replace("\r\n", "\n", StringComparison.Ordinal).TrimEnd() + "\n";

    private static string Relative(string path) => Path.GetRelativePath(RepositoryRoot.Find(), path);

    private static string FirstDifference(string expected, string actual)
    {
        string[] a = expected.Split('\n'), b = actual.Split('\n');
        for (int i = 0; i < Math.Max(a.Length, b.Length); i++)
        {
            string left = i < a.Length ? a[i] : "<end>", right = i < b.Length ? b[i] : "<end>";
            if (left != right) return $"line {i + 1}: pinned \"{left.Trim()}\", built \"{right.Trim()}\"";
        }
        return "whitespace only";
    }
}
