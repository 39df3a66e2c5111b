using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>The frame log's chunked columns: absolute positions that survive drops, drops in whole chunks only, and
/// chunks reused after a drop.</summary>
public sealed class PinnedChunksTests
{
    [Fact]
    public void Values_keep_their_positions_across_drops_and_chunk_reuse()
    {
        var column = new PinnedChunks<long>(chunkLength: 4);
        var random = new Random(7);
        for (int round = 0; round < 2000; round++)
        {
            int adds = random.Next(0, 7);
            for (int i = 0; i < adds; i++)
                Assert.Equal(column.Next, column.Add(column.Next * 10));
            if (random.Next(3) == 0)
            {
                long before = column.First;
                long to = column.First + random.Next((int)(column.Next - column.First) + 1);
                int dropped = column.DropBefore(to);
                Assert.Equal(before + 4L * dropped, column.First);
                Assert.True(
                    column.First <= to && to - column.First < 4 || column.First == column.Next,
                    $"first {column.First}, asked {to}"
                );
            }
            for (long p = column.First; p < column.Next; p++)
                Assert.Equal(p * 10, column[p]);
            Assert.Equal((column.Next - column.First) % 4 == 0, column.NextStartsChunk);
        }
    }

    [Fact]
    public void Dropping_every_full_chunk_leaves_an_empty_column_that_appends_again()
    {
        var column = new PinnedChunks<int>(chunkLength: 3);
        for (int i = 0; i < 6; i++)
            column.Add(i);
        Assert.Equal(2, column.DropBefore(6));
        Assert.Equal(6, column.First);
        Assert.Equal(6, column.Add(60));
        Assert.Equal(60, column[6]);
        Assert.Equal(0, column.DropBefore(6));
    }

    [Fact]
    public void A_column_that_never_fills_its_first_chunk_prepares_none()
    {
        var column = new PinnedChunks<long>(chunkLength: 8, prepareAhead: true);
        for (long v = 0; v < 8; v++)
            column.Add(v); // the whole first chunk, its last eighth included
        Assert.False(column.PreparationQueued, "a chunk was prepared for a column still in its first chunk");
        column.Add(8); // the second chunk: allocated on the appending thread
        Assert.Equal(0, column.PreparedTaken);
        Assert.False(column.HasPrepared);
    }

    [Fact]
    public void The_next_chunk_is_asked_for_in_the_last_eighth_of_a_chunk()
    {
        Assert.Equal(14, new PinnedChunks<long>(chunkLength: 16, prepareAhead: true).PrepareAt);
        Assert.Equal(3584, new PinnedChunks<long>(chunkLength: 4096, prepareAhead: true).PrepareAt);
        Assert.Equal(3, new PinnedChunks<long>(chunkLength: 4, prepareAhead: true).PrepareAt); // at least the last value
        var column = new PinnedChunks<long>(chunkLength: 16, prepareAhead: true);
        for (long v = 0; v < 16 + 14; v++)
            column.Add(v); // the second chunk up to just before its last eighth
        Assert.False(column.PreparationQueued, "a chunk was asked for before the last eighth of the chunk");
        column.Add(30); // position 14 of the second chunk
        Assert.True(column.PreparationQueued);
    }

    [Fact]
    public void A_chunk_prepared_ahead_is_the_next_one_used_and_values_keep_their_positions()
    {
        var column = new PinnedChunks<long>(chunkLength: 8, prepareAhead: true);
        for (long v = 0; v < 16; v++)
            column.Add(v); // up to position 7 of the second chunk: its last eighth
        Assert.True(
            SpinWait.SpinUntil(() => column.HasPrepared, TimeSpan.FromSeconds(30)),
            "the pool thread never prepared the next chunk"
        );
        column.Add(16); // the seventeenth value starts the third chunk
        Assert.Equal(1, column.PreparedTaken);
        Assert.False(column.HasPrepared);
        for (long p = 0; p < 17; p++)
            Assert.Equal(p, column[p]);
    }

    [Fact]
    public void A_dropped_chunk_is_reused_before_the_prepared_one()
    {
        var column = new PinnedChunks<long>(chunkLength: 4, prepareAhead: true);
        for (long v = 0; v < 8; v++)
            column.Add(v); // position 7, the last eighth of the second chunk: the next chunk is prepared
        Assert.True(
            SpinWait.SpinUntil(() => column.HasPrepared, TimeSpan.FromSeconds(30)),
            "the pool thread never prepared the next chunk"
        );
        Assert.Equal(1, column.DropBefore(4)); // the first chunk is kept for reuse
        column.Add(8);
        Assert.Equal(0, column.PreparedTaken); // the dropped chunk came first
        Assert.True(column.HasPrepared);
        for (long v = 9; v < 13; v++)
            column.Add(v); // position 12 starts the next chunk: the prepared one, still one ahead at most
        Assert.Equal(1, column.PreparedTaken);
        for (long p = column.First; p < column.Next; p++)
            Assert.Equal(p, column[p]);
    }
}
