using System.Reflection;
using AmqpConformance.Cli.Tests.Packaging;
using PublicApiGenerator;

namespace AmqpConformance.Cli.Tests.Layout;

/// <summary>The public API of every shipped package is pinned in <c>PublicAPI.txt</c> beside its project file, so a
/// change to it is a deliberate edit a reviewer sees, never a side effect. On a difference the test writes what it
/// found to <c>PublicAPI.received.txt</c> beside it (ignored by git) and fails naming both files; to accept the change,
/// run the tests with <c>AMQPC_ACCEPT_API=1</c>, which overwrites <c>PublicAPI.txt</c>, and commit it. Read from the
/// net10.0 build.</summary>
public sealed partial class PublicApiTests
{
    /// <summary>Each shipped package: a type of its assembly, and its project folder relative to the repository
    /// root.</summary>
    public static TheoryData<string, string> Packages { get; } =
        new()
        {
            { typeof(Protocol.AmqpConstants).AssemblyQualifiedName!, "protocol/src/AmqpConformance.Protocol" },
            { typeof(FakeBroker.BrokerQueue).AssemblyQualifiedName!, "fakebroker/src/AmqpConformance.FakeBroker" },
            { typeof(Harness.Writers.IFrameWriter).AssemblyQualifiedName!, "harness/src/AmqpConformance.Harness" },
            { typeof(Toxiproxy.ToxiproxyClient).AssemblyQualifiedName!, "toxiproxy/src/AmqpConformance.Toxiproxy" },
            {
                typeof(Toxiproxy.EmbeddedToxiproxy).AssemblyQualifiedName!,
                "toxiproxy/src/AmqpConformance.Toxiproxy.Server"
            },
            {
                typeof(Properties.ConformanceProperties).AssemblyQualifiedName!,
                "properties/src/AmqpConformance.Properties"
            },
            { typeof(Suites.FrameWriterConformanceSuite).AssemblyQualifiedName!, "suites/src/AmqpConformance.Suites" },
        };

    [Theory]
    [MemberData(nameof(Packages))]
    public void The_public_api_is_the_one_pinned_beside_the_project(string anchorType, string projectFolder) =>
        CheckPinned(Type.GetType(anchorType, throwOnError: true)!.Assembly, projectFolder);

    /// <summary>The xunit v3 suites package: its types share their names with the xunit 2 package's, and its xunit v3
    /// references would clash with this project's xunit 2, so it is read from the output of the xunit v3 test project
    /// (built first: a project reference that references no assembly), where its dependencies lie beside it.</summary>
    [Fact]
    public void The_xunit_v3_suites_public_api_is_the_one_pinned_beside_the_project()
    {
        string leaf = Path.GetFileName(Path.TrimEndingDirectorySeparator(AppContext.BaseDirectory));
        string path = Path.GetFullPath(
            Path.Combine(
                AppContext.BaseDirectory,
                "..",
                "..",
                "AmqpConformance.Suites.XunitV3.Tests",
                leaf,
                "AmqpConformance.Suites.XunitV3.dll"
            )
        );
        Assert.True(File.Exists(path), $"not built: {path}");
        CheckPinned(
            new System.Runtime.Loader.AssemblyLoadContext("xunit-v3-suites", isCollectible: true).LoadFromAssemblyPath(
                path
            ),
            "suites/src/AmqpConformance.Suites.XunitV3"
        );
    }

    private static void CheckPinned(Assembly assembly, string projectFolder)
    {
        string api = Normalize(
            assembly.GeneratePublicApi(
                new ApiGeneratorOptions
                {
                    ExcludeAttributes =
                    [
                        "System.Runtime.Versioning.TargetFrameworkAttribute",
                        "System.Runtime.CompilerServices.InternalsVisibleToAttribute",
                    ],
                }
            )
        );
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
        Assert.Fail(
            $"The public API of {assembly.GetName().Name} differs from {Relative(pinned)} ({FirstDifference(expected, api)}). "
                + $"What the build has is in {Relative(received)}. If the change is meant, run the tests with AMQPC_ACCEPT_API=1 and commit "
                + "PublicAPI.txt; if not, a public member changed by accident."
        );
    }

    private static string Normalize(string text) =>
        SourceLocation().Replace(text.Replace("\r\n", "\n", StringComparison.Ordinal), "[$1]").TrimEnd() + "\n";

    /// <summary>xunit v3's attributes record where a test is declared (the compiler fills in the file and line): that
    /// is where the clone is, not API. The generator cuts a long path into literals joined by <c>+</c> across lines (a
    /// clone under a deeper folder than the pinning one), so any number of them is one location.</summary>
    [System.Text.RegularExpressions.GeneratedRegex(@"\[([\w.]+)\(""[^""]*""(?:\s*\+\s*""[^""]*"")*, -?\d+\)\]")]
    private static partial System.Text.RegularExpressions.Regex SourceLocation();

    private static string Relative(string path) => Path.GetRelativePath(RepositoryRoot.Find(), path);

    private static string FirstDifference(string expected, string actual)
    {
        string[] a = expected.Split('\n'),
            b = actual.Split('\n');
        for (int i = 0; i < Math.Max(a.Length, b.Length); i++)
        {
            string left = i < a.Length ? a[i] : "<end>",
                right = i < b.Length ? b[i] : "<end>";
            if (left != right)
                return $"line {i + 1}: pinned \"{left.Trim()}\", built \"{right.Trim()}\"";
        }
        return "whitespace only";
    }
}
