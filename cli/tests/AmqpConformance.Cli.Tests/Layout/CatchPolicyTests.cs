using System.Text.RegularExpressions;
using AmqpConformance.Cli.Tests.Packaging;

namespace AmqpConformance.Cli.Tests.Layout;

/// <summary>The text scan behind <see cref="CatchPolicyTests"/>: a catch of every exception (<c>catch</c>,
/// <c>catch (Exception)</c>, <c>catch (Exception e)</c>, with or without a filter) must account for what it catches.
/// Its block rethrows (<c>throw</c>), records (<c>SwallowedExceptions.Record</c>, or a logger: <c>BrokerLog.X(</c>,
/// <c>logger.LogX(</c>), uses the caught exception (passes it into a result: a failed task, a fault field, an error
/// line), or says why nothing is lost in a comment on the catch's line or the block's first line. Catches of one
/// named type other than <see cref="Exception"/> are the code's expectation and are not scanned.</summary>
public static partial class CatchPolicy
{
    [GeneratedRegex(
        @"\bcatch\b(?:\s*\(\s*(?:System\.)?Exception(?:\s+(?<name>\w+))?\s*\))?(?:\s*when\s*\((?:[^()]|\([^()]*\))*\))?\s*\{"
    )]
    private static partial Regex CatchOfEverything();

    [GeneratedRegex(@"\bthrow\b|SwallowedExceptions\.Record\(|\b\w*Log\.\w+\(|\b_?[Ll]ogger\.Log\w*\(")]
    private static partial Regex RethrowsOrRecords();

    /// <summary>Every catch of every exception in <paramref name="source"/> (C# text) that does not account for what it
    /// caught: its line number (1-based) and its line.</summary>
    public static IReadOnlyList<(int Line, string Text)> Unexplained(string source)
    {
        ArgumentNullException.ThrowIfNull(source);
        var found = new List<(int, string)>();
        foreach (Match m in CatchOfEverything().Matches(source))
        {
            int lineStart = m.Index == 0 ? 0 : source.LastIndexOf('\n', m.Index - 1) + 1;
            string before = source[lineStart..m.Index];
            if (before.Contains("//", StringComparison.Ordinal) || before.TrimStart().StartsWith('*'))
                continue; // in a comment
            string body = Block(source, m.Index + m.Length);
            if (RethrowsOrRecords().IsMatch(body))
                continue;
            string name = m.Groups["name"].Value;
            if (name.Length > 0 && Regex.IsMatch(body, $@"\b{Regex.Escape(name)}\b"))
                continue;
            if (Opening(source, lineStart, m.Index + m.Length) is var opening && HasComment(opening))
                continue;
            int number = source.AsSpan(0, m.Index).Count('\n') + 1;
            found.Add((number, LineAt(source, lineStart).Trim()));
        }
        return found;
    }

    /// <summary>The block that opens just before <paramref name="start"/>, without its braces.</summary>
    private static string Block(string source, int start)
    {
        int depth = 1;
        int i = start;
        for (; i < source.Length && depth > 0; i++)
        {
            if (source[i] == '{')
                depth++;
            else if (source[i] == '}')
                depth--;
        }
        return source[start..Math.Max(start, i - 1)];
    }

    /// <summary>From the catch's line to the end of the line holding the first thing after its opening brace: the
    /// catch itself, its block's first line, or, for an empty block, the line it closes on.</summary>
    private static string Opening(string source, int lineStart, int afterBrace)
    {
        int first = afterBrace;
        while (first < source.Length && char.IsWhiteSpace(source[first]))
            first++;
        int end = source.IndexOf('\n', Math.Min(first, source.Length));
        return source[lineStart..(end < 0 ? source.Length : end)];
    }

    private static bool HasComment(string text) =>
        text.Contains("//", StringComparison.Ordinal) || text.Contains("/*", StringComparison.Ordinal);

    private static string LineAt(string source, int lineStart)
    {
        int end = source.IndexOf('\n', lineStart);
        return source[lineStart..(end < 0 ? source.Length : end)];
    }
}

/// <summary>The repository's policy for exceptions caught and not rethrown (docs/design.md, "Exceptions caught and not
/// rethrown"), for shipped code (every <c>src/</c> folder): a catch of every exception rethrows, records
/// (<c>SwallowedExceptions.Record</c> where the harness is referenced, the library's logger where it is not), turns the
/// exception into a result the caller reports, or says why nothing is lost. <see cref="EmptyCatchTests"/> covers
/// empty catches of any type everywhere.</summary>
public sealed class CatchPolicyTests
{
    [Fact]
    public void Every_catch_of_every_exception_in_shipped_code_accounts_for_it()
    {
        string root = RepositoryRoot.Find();
        var unexplained = new List<string>();
        int files = 0;
        foreach (string file in Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(root, file).Replace('\\', '/');
            if (
                !relative.Contains("/src/", StringComparison.Ordinal)
                || relative.StartsWith("artifacts/", StringComparison.Ordinal)
                || relative.StartsWith("TestResults/", StringComparison.Ordinal)
                || relative.Contains("/obj/", StringComparison.Ordinal)
                || relative.Contains("/bin/", StringComparison.Ordinal)
            )
                continue;
            files++;
            foreach (var (line, text) in CatchPolicy.Unexplained(File.ReadAllText(file)))
                unexplained.Add($"{relative}:{line}: {text}");
        }
        Assert.True(files > 100, $"found only {files} source files under src/ folders: the scan is looking elsewhere");
        Assert.True(
            unexplained.Count == 0,
            "Catches of every exception that neither rethrow, record, report the exception nor say why nothing is lost "
                + "(see docs/design.md, \"Exceptions caught and not rethrown\"):\n"
                + string.Join("\n", unexplained)
        );
    }

    [Fact]
    public void The_scan_finds_a_catch_that_drops_what_it_caught()
    {
        const string planted = """
            class Planted
            {
                void A()
                {
                    try { Work(); }
                    catch (Exception)
                    {
                        _count++;
                    }
                }

                void B()
                {
                    try { Work(); }
                    catch
                    {
                        Cleanup();
                    }
                }

                bool C()
                {
                    try { Work(); return true; }
                    catch (Exception e) when (e is IOException)
                    {
                        return false;
                    }
                }
            }
            """;
        var found = CatchPolicy.Unexplained(planted);
        int[] lines = [6, 15, 24];
        Assert.Equal(lines, found.Select(f => f.Line));
        Assert.Equal("catch (Exception e) when (e is IOException)", found[2].Text);
    }

    [Fact]
    public void The_scan_passes_catches_that_account_for_what_they_caught()
    {
        const string good = """
            class Good
            {
                void Rethrows()
                {
                    try { Work(); }
                    catch
                    {
                        Cleanup();
                        throw;
                    }
                }

                void Records()
                {
                    try { Work(); }
                    catch (Exception e)
                    {
                        SwallowedExceptions.Record("closing the output", e);
                    }
                }

                void Logs()
                {
                    try { Work(); }
                    catch (Exception)
                    {
                        BrokerLog.Stopping(_logger, 0);
                    }
                }

                string? Reports()
                {
                    try { Work(); return null; }
                    catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
                    {
                        return $"could not write: {ex.Message}";
                    }
                }

                void SaysWhyOnItsFirstLine()
                {
                    try { _cts.Cancel(); }
                    catch (Exception)
                    {
                        // disposed already: nothing left to cancel
                    }
                    try { _socket.Shutdown(); }
                    catch (Exception) { } // closed already: the peer sees the end either way
                }

                void NamesItsType()
                {
                    try { Work(); }
                    catch (IOException)
                    {
                        _count++;
                    }
                    // catch (Exception) { _count++; } is not code
                }
            }
            """;
        Assert.Empty(CatchPolicy.Unexplained(good));
    }
}
