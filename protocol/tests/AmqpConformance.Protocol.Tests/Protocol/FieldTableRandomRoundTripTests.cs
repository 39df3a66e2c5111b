using System.Buffers;
using AmqpConformance.Protocol;

namespace AmqpConformance.Protocol.Tests;

/// <summary>Seeded random tables (every tag, nesting, odd strings): decode(encode(t)) == t and the bytes
/// survive.</summary>
public class FieldTableRandomRoundTripTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Random_tables_round_trip_byte_exactly(int seed)
    {
        var random = new Random(seed);
        for (int i = 0; i < 50; i++)
        {
            var table = RandomTable(random, depth: 0);
            var buffer = new ArrayBufferWriter<byte>();
            var writer = new AmqpWriter(buffer);
            writer.WriteFieldTable(table);

            var measuring = AmqpWriter.Measuring();
            measuring.WriteFieldTable(table);
            Assert.Equal(buffer.WrittenCount, measuring.BytesWritten);

            var reader = new AmqpReader(buffer.WrittenSpan);
            var decoded = reader.ReadFieldTable();
            reader.EnsureEnd("table");
            Assert.Equal(table, decoded);

            var again = new ArrayBufferWriter<byte>();
            var rewriter = new AmqpWriter(again);
            rewriter.WriteFieldTable(decoded);
            Assert.True(buffer.WrittenSpan.SequenceEqual(again.WrittenSpan), $"seed {seed}, table {i}: {table}");
        }
    }

    private static FieldTable RandomTable(Random random, int depth)
    {
        int count = random.Next(0, depth == 0 ? 12 : 4);
        var entries = new List<KeyValuePair<string, FieldValue>>();
        for (int i = 0; i < count; i++)
            entries.Add(KeyValuePair.Create(RandomString(random, random.Next(0, 20)), RandomValue(random, depth)));
        return new FieldTable(entries);
    }

    private static FieldValue RandomValue(Random random, int depth)
    {
        int kind = random.Next(depth < 3 ? 17 : 15);
        return kind switch
        {
            0 => random.Next(2) == 1,
            1 => (sbyte)random.Next(-128, 128),
            2 => (byte)random.Next(256),
            3 => (short)random.Next(short.MinValue, short.MaxValue + 1),
            4 => (ushort)random.Next(ushort.MaxValue + 1),
            5 => random.Next(int.MinValue, int.MaxValue),
            6 => (uint)random.NextInt64(uint.MaxValue + 1L),
            7 => random.NextInt64(long.MinValue, long.MaxValue),
            8 => (float)(random.NextDouble() * 1e6 - 5e5),
            9 => random.NextDouble() * 1e12 - 5e11,
            10 => new AmqpDecimal((byte)random.Next(256), random.Next(int.MinValue, int.MaxValue)),
            11 => random.Next(4) == 0
                ? FieldValue.LongString(RandomBytes(random))
                : RandomString(random, random.Next(0, 40)),
            12 => RandomBytes(random),
            13 => new AmqpTimestamp((ulong)random.NextInt64()),
            14 => FieldValue.Void,
            15 => RandomTable(random, depth + 1),
            _ => new FieldArray(Enumerable.Range(0, random.Next(0, 5)).Select(_ => RandomValue(random, depth + 1))),
        };
    }

    private static string RandomString(Random random, int length)
    {
        const string alphabet = "abcXYZ-_.0é€😀";
        var chars = new System.Text.StringBuilder();
        while (chars.Length < length)
        {
            int index = random.Next(alphabet.Length - 1);
            if (char.IsHighSurrogate(alphabet[index]))
                chars.Append(alphabet, index, 2);
            else if (!char.IsLowSurrogate(alphabet[index]))
                chars.Append(alphabet[index]);
        }
        return chars.ToString();
    }

    private static byte[] RandomBytes(Random random)
    {
        var bytes = new byte[random.Next(0, 16)];
        random.NextBytes(bytes);
        return bytes;
    }
}
