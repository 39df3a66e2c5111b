using AmqpConformance.Harness.Pooling;
using AmqpConformance.Harness.Verdicts;

namespace AmqpConformance.Harness.Tests.Verdicts;

public class PoolsCheckerTests
{
    private readonly PoolsChecker _checker = new();

    [Fact]
    public void Clean_ledger_and_owners_disposed_once_after_their_bytes_hold()
    {
        var b = new WireLogBuilder();
        long[] seqs = b.Publish(1, 0, [1, 2, 3]);
        b.Replace(
            b.Call(0, [1, 2, 3], 0, 1) with
            {
                HasBodyOwner = true,
                BodyOwnerDisposals = 1,
                BodyOwnerDisposedAtOutputBytes = 1_000,
            }
        );
        Assert.True(_checker.Run(b.Evidence(e => e with { Pool = PoolLedgers.With(3, 3) })).Holds);
        Assert.Equal(3, seqs.Length);
    }

    [Theory]
    [InlineData(PoolFindingKind.Leak, "rental-not-returned")]
    [InlineData(PoolFindingKind.DoubleReturn, "double-return")]
    [InlineData(PoolFindingKind.ForeignReturn, "foreign-return")]
    [InlineData(PoolFindingKind.WriteAfterReturn, "write-after-return")]
    public void Every_ledger_finding_is_a_violation(PoolFindingKind kind, string rule)
    {
        var b = new WireLogBuilder();
        var verdict = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    Pool = PoolLedgers.With(1, 1, PoolLedgers.Finding(kind, "array #1 (4096 bytes)")),
                }
            )
        );
        Assert.Contains("array #1", verdict.Single(rule).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_write_to_a_callers_poisoned_body_array_is_a_violation()
    {
        var b = new WireLogBuilder();
        var verdict = _checker.Run(
            b.Evidence(e =>
                e with
                {
                    CallerArrayFindings =
                    [
                        PoolLedgers.Finding(PoolFindingKind.WriteAfterReturn, "array #1 was written after return"),
                    ],
                }
            )
        );
        Assert.StartsWith(
            "caller's body array",
            verdict.Single("write-after-return").Message,
            StringComparison.Ordinal
        );
    }

    [Fact]
    public void Owner_disposed_twice_never_or_before_its_last_byte_is_caught()
    {
        var b = new WireLogBuilder();
        long[] seqs = b.Publish(1, 0, WireLogBuilder.Bytes(5000));
        b.Publish(1, 1, [1]);
        b.Publish(1, 2, [1]);
        b.Replace(
            b.Call(0, WireLogBuilder.Bytes(5000), 0, 1) with
            {
                HasBodyOwner = true,
                BodyOwnerDisposals = 1,
                BodyOwnerDisposedAtOutputBytes = 100,
            }
        );
        b.Replace(
            b.Call(1, [1], 2, 3) with
            {
                HasBodyOwner = true,
                BodyOwnerDisposals = 2,
                BodyOwnerDisposedAtOutputBytes = 100_000,
            }
        );
        b.Replace(b.Call(2, [1], 4, 5) with { HasBodyOwner = true, BodyOwnerDisposals = 0 });
        var verdict = _checker.Run(b.Evidence());
        Assert.Equal([seqs[^1]], verdict.Single("owner-disposed-early").Frames);
        Assert.Equal([1], verdict.Single("owner-disposed-twice").Calls);
        Assert.Equal([2], verdict.Single("owner-not-disposed").Calls);
    }
}
