using System.Buffers;
using System.Text;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

public sealed class FrameDigestTests
{
    // Published XXH64 values (seed 0 unless given), as printed by the reference implementation's xxhsum and its bindings.
    [Theory]
    [InlineData("", 0UL, 0xEF46DB3751D8E999UL)]
    [InlineData("a", 0UL, 0xD24EC4F1A98C6E5BUL)]
    [InlineData("abc", 0UL, 0x44BC2CF5AD770999UL)]
    [InlineData("xxhash", 0UL, 0x32DD38952C4BC720UL)]
    [InlineData("abcdefghijklmnopqrstuvwxyz12345", 0UL, 0x467605901B01D6F6UL)]
    [InlineData("Nobody inspects the spammish repetition", 0UL, 0xFBCEA83C8A378BF1UL)]
    [InlineData("", 668718853UL, 0x04E830582A31A119UL)]
    [InlineData("a", 191961062UL, 0x6E05BA2887C97977UL)]
    public void Matches_the_published_XXH64_test_vectors(string text, ulong seed, ulong expected)
    {
        byte[] bytes = Encoding.ASCII.GetBytes(text);
        Assert.Equal(expected, FrameDigest.Compute(bytes, seed));
        if (seed == 0) Assert.Equal(expected, FrameDigest.Compute(bytes));
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
