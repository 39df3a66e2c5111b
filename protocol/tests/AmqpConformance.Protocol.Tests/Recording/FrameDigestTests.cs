using System.Buffers;
using System.Text;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

public sealed class FrameDigestTests
{
    // XXH3 (64-bit, seed 0) values as xxHash's own command-line tool prints them (`xxhsum -H3`, 0.8.1): for ASCII text,
    // and for the byte pattern (31 i + 7) mod 256 at lengths on both sides of each of XXH3's internal paths (0, 1-3,
    // 4-8, 9-16, 17-128, 129-240, over 240 in stripes and blocks). "" and "abc" are also the values published with the
    // algorithm.
    [Theory]
    [InlineData("", 0x2D06800538D394C2UL)]
    [InlineData("a", 0xE6C632B61E964E1FUL)]
    [InlineData("abc", 0x78AF5F94892F3950UL)]
    [InlineData("xxhash", 0xAA4C2B42AE6B13DEUL)]
    [InlineData("Nobody inspects the spammish repetition", 0x6CB00603B5CC47E9UL)]
    public void Matches_xxhsum_for_text(string text, ulong expected)
    {
        byte[] bytes = Encoding.ASCII.GetBytes(text);
        Assert.Equal(expected, FrameDigest.Compute(bytes));
        Assert.Equal(expected, FrameDigest.Compute(bytes, seed: 0));
    }

    [Theory]
    [InlineData(0, 0x2D06800538D394C2UL)]
    [InlineData(1, 0x4C5CCA45D0F4811FUL)]
    [InlineData(3, 0x15F7093B173D005CUL)]
    [InlineData(4, 0xDCA012F95811B6B9UL)]
    [InlineData(8, 0xDEC6A9A43575982EUL)]
    [InlineData(9, 0xCBE393399F17FFBDUL)]
    [InlineData(16, 0x7E484C18D74895D0UL)]
    [InlineData(17, 0x208BDE5EE2BED407UL)]
    [InlineData(128, 0xF92B70EAA21A6288UL)]
    [InlineData(129, 0xF8F76713F2BB60FAUL)]
    [InlineData(240, 0xCCC7375172C41F03UL)]
    [InlineData(241, 0x0B3B630948CE4A00UL)]
    [InlineData(1024, 0x23BC880EBF0D29C6UL)]
    [InlineData(1025, 0xC09FDFBC398C7D82UL)]
    [InlineData(4096, 0xA3C19F8174CDE0BBUL)]
    [InlineData(131064, 0x8183048C4066BC96UL)]
    [InlineData(1048576, 0x269EB834F6C110A9UL)]
    public void Matches_xxhsum_at_every_length_class(int length, ulong expected)
    {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
            bytes[i] = unchecked((byte)(i * 31 + 7));
        Assert.Equal(expected, FrameDigest.Compute(bytes));
        Assert.Equal(expected, FrameDigest.Compute(Pieces(bytes, 4093)));
    }

    [Fact]
    public void A_seed_changes_the_digest()
    {
        byte[] bytes = "abc"u8.ToArray();
        Assert.NotEqual(FrameDigest.Compute(bytes), FrameDigest.Compute(bytes, seed: 1));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(31)]
    [InlineData(32)]
    [InlineData(33)]
    [InlineData(100)]
    [InlineData(131064)]
    public void A_payload_split_into_pieces_digests_like_the_whole(int length)
    {
        var bytes = new byte[length];
        new Random(length).NextBytes(bytes);
        ulong whole = FrameDigest.Compute(bytes);
        foreach (int piece in new[] { 1, 3, 7, 31, 32, 33, 4096, 65536 })
            Assert.Equal(whole, FrameDigest.Compute(Pieces(bytes, piece)));
    }

    [Fact]
    public void Any_changed_byte_changes_the_digest()
    {
        var bytes = new byte[1000];
        new Random(7).NextBytes(bytes);
        ulong original = FrameDigest.Compute(bytes);
        foreach (int at in new[] { 0, 31, 32, 500, 999 })
        {
            bytes[at] ^= 1;
            Assert.NotEqual(original, FrameDigest.Compute(bytes));
            bytes[at] ^= 1;
        }
        Assert.Equal(original, FrameDigest.Compute(bytes));
    }

    private static ReadOnlySequence<byte> Pieces(byte[] bytes, int pieceLength) =>
        TestSupport.Wire.Segmented(bytes.Chunk(pieceLength).ToArray());
}
