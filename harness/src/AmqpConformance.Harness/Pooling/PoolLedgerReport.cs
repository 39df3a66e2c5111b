using System.Text;

namespace AmqpConformance.Harness.Pooling;

/// <summary>A snapshot of a <see cref="TrackingArrayPool"/>'s ledger: counters, what is still rented, and every
/// finding.</summary>
/// <param name="Rents">Successful <c>Rent</c> calls.</param>
/// <param name="Returns">Accepted <c>Return</c> calls (double and foreign returns are not counted here).</param>
/// <param name="BytesRented">Sum of the lengths of all arrays handed out by <c>Rent</c>.</param>
/// <param name="ArraysAllocated">Arrays the pool had to create (the rest of the rents reused a returned array).</param>
/// <param name="Outstanding">Arrays rented and not returned at the time of the report.</param>
/// <param name="Findings">Every finding: the recorded double, foreign and write-after-return findings, then one
/// <see cref="PoolFindingKind.Leak"/> per outstanding rental.</param>
public sealed record PoolLedgerReport(
    long Rents,
    long Returns,
    long BytesRented,
    long ArraysAllocated,
    IReadOnlyList<OutstandingRental> Outstanding,
    IReadOnlyList<PoolFinding> Findings
)
{
    /// <summary>True when nothing is outstanding and nothing was misused.</summary>
    public bool IsClean => Findings.Count == 0;

    /// <summary>A human-readable account: counters, then one line (plus rent stack, if captured) per finding.</summary>
    public override string ToString()
    {
        var sb = new StringBuilder();
        sb.Append(
            $"TrackingArrayPool: {Rents} rents, {Returns} returns, {BytesRented} bytes rented, {ArraysAllocated} arrays allocated, {Outstanding.Count} outstanding"
        );
        if (IsClean)
        {
            sb.Append(" - clean.");
            return sb.ToString();
        }
        sb.Append($" - {Findings.Count} finding(s):");
        foreach (var group in Findings.GroupBy(f => f.Kind))
        {
            sb.AppendLine().Append($"  {group.Key} x{group.Count()}");
            foreach (var f in group)
            {
                sb.AppendLine().Append("    - ").Append(f.Message);
                if (f.RentStack is not null)
                    sb.AppendLine().Append("      rented at:").AppendLine().Append(Indent(f.RentStack, "        "));
            }
        }
        return sb.ToString();
    }

    private static string Indent(string text, string prefix) =>
        string.Join(Environment.NewLine, text.TrimEnd().Split('\n').Select(l => prefix + l.TrimEnd('\r').TrimStart()));
}
