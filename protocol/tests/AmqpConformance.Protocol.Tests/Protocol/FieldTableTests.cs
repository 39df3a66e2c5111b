using AmqpConformance.Protocol;
using static AmqpConformance.TestSupport.Wire;

namespace AmqpConformance.Protocol.Tests;

public class FieldTableTests
{
    private static FieldTable EveryTag() =>
        new()
        {
            ["t"] = true,
            ["b"] = (sbyte)-1,
            ["B"] = (byte)254,
            ["s"] = (short)-2,
            ["u"] = (ushort)65533,
            ["I"] = -3,
            ["i"] = 4294967292u,
            ["l"] = -5L,
            ["f"] = 1.5f,
            ["d"] = 2.5,
            ["D"] = new AmqpDecimal(2, 12345),
            ["S"] = "hi",
            ["x"] = new byte[] { 0x00, 0xFF },
            ["A"] = new FieldArray(1, false),
            ["T"] = new AmqpTimestamp(0x65000000),
            ["F"] = new FieldTable { ["k"] = FieldValue.Void },
            ["V"] = FieldValue.Void,
        };

    private const string EveryTagWire =
        "00000081"
        + "01 74 74 01"
        + "01 62 62 FF"
        + "01 42 42 FE"
        + "01 73 73 FFFE"
        + "01 75 75 FFFD"
        + "01 49 49 FFFFFFFD"
        + "01 69 69 FFFFFFFC"
        + "01 6C 6C FFFFFFFFFFFFFFFB"
        + "01 66 66 3FC00000"
        + "01 64 64 4004000000000000"
        + "01 44 44 02 00003039"
        + "01 53 53 00000002 6869"
        + "01 78 78 00000002 00FF"
        + "01 41 41 00000007 49 00000001 74 00"
        + "01 54 54 0000000065000000"
        + "01 46 46 00000003 01 6B 56"
        + "01 56 56";

    [Fact]
    public void Table_with_every_type_tag_encodes_to_the_hand_computed_bytes()
    {
        byte[] wire = Capture(w =>
        {
            var writer = new AmqpWriter(w);
            writer.WriteFieldTable(EveryTag());
        });
        Assert.Equal(ToHex(Hex(EveryTagWire)), ToHex(wire));
    }

    [Fact]
    public void Table_with_every_type_tag_decodes_with_each_tag_and_value()
    {
        var reader = new AmqpReader(Hex(EveryTagWire));
        var table = reader.ReadFieldTable();
        reader.EnsureEnd("table");

        Assert.Equal(EveryTag(), table);
        Assert.Equal(["t", "b", "B", "s", "u", "I", "i", "l", "f", "d", "D", "S", "x", "A", "T", "F", "V"], table.Keys);
        foreach (var (key, value) in table)
            Assert.Equal(key[0], (char)value.Type);
        Assert.True(table["t"].AsBoolean());
        Assert.Equal(-1, table["b"].AsInt64());
        Assert.Equal(4294967292L, table["i"].AsInt64());
        Assert.Equal(-5, table["l"].AsInt64());
        Assert.Equal(1.5, table["f"].AsDouble());
        Assert.Equal(123.45m, table["D"].AsDecimal().ToDecimal());
        Assert.Equal("hi", table["S"].AsString());
        Assert.Equal(new byte[] { 0, 0xFF }, table["x"].AsBytes().ToArray());
        Assert.Throws<InvalidOperationException>(() => table["x"].AsString());
        Assert.Equal(FieldValueType.Int32, table["A"].AsArray()[0].Type);
        Assert.Equal(FieldValueType.Void, table["F"].AsTable()["k"].Type);
        Assert.Null(table["V"].Value);
    }

    [Fact]
    public void Nested_tables_and_arrays()
    {
        var table = new FieldTable
        {
            ["outer"] = new FieldTable
            {
                ["inner"] = new FieldArray(new FieldTable { ["z"] = (sbyte)1 }, FieldArray.Empty),
            },
        };
        string expected =
            "00000024"
            + "05 6F75746572 46 00000019"
            + "05 696E6E6572 41 0000000E"
            + "46 00000004 01 7A 62 01"
            + "41 00000000";
        byte[] wire = Capture(w =>
        {
            var writer = new AmqpWriter(w);
            writer.WriteFieldTable(table);
        });
        Assert.Equal(ToHex(Hex(expected)), ToHex(wire));

        var reader = new AmqpReader(wire);
        var decoded = reader.ReadFieldTable();
        Assert.Equal(table, decoded);
        Assert.Equal(1, decoded["outer"].AsTable()["inner"].AsArray()[0].AsTable()["z"].AsInt64());
    }

    [Fact]
    public void Decode_then_encode_is_byte_exact_for_uncommon_tags_duplicates_and_non_utf8_strings()
    {
        // 'i' (uint32) and 'u' are kept, a duplicated key stays duplicated, and an 'S' holding invalid UTF-8
        // keeps its exact bytes.
        string wire =
            "00000015"
            + "01 61 69 00000001"
            + // a: i 1
            "01 61 75 0002"
            + // a: u 2 (duplicate key)
            "01 62 53 00000002 C328"; // b: S with an invalid UTF-8 sequence
        var reader = new AmqpReader(Hex(wire));
        var table = reader.ReadFieldTable();
        Assert.Equal(3, table.Count);
        Assert.Equal(FieldValueType.UInt32, table["a"].Type);
        Assert.Equal(new byte[] { 0xC3, 0x28 }, table["b"].AsBytes().ToArray());

        byte[] again = Capture(w =>
        {
            var writer = new AmqpWriter(w);
            writer.WriteFieldTable(table);
        });
        Assert.Equal(ToHex(Hex(wire)), ToHex(again));
    }

    [Theory]
    [InlineData("00000004 01 6B 5A 00", "0x5A ('Z')")]
    [InlineData("00000004 01 6B 00 00", "0x00")]
    public void Unknown_tag_is_rejected_with_its_offset(string hex, string tagText)
    {
        var ex = Assert.Throws<AmqpDecodeException>(() =>
        {
            var reader = new AmqpReader(Hex(hex));
            reader.ReadFieldTable();
        });
        Assert.Contains(tagText, ex.Message);
        Assert.Equal(6, ex.Offset); // 4-byte length + key length octet + key byte
    }

    [Fact]
    public void Table_length_past_the_end_is_rejected()
    {
        var ex = Assert.Throws<AmqpDecodeException>(() =>
        {
            var reader = new AmqpReader(Hex("00000010 01 6B 56"));
            reader.ReadFieldTable();
        });
        Assert.Contains("Truncated", ex.Message);
    }

    [Fact]
    public void Value_cut_short_inside_a_table_is_rejected()
    {
        // Table length 5 covers key "k", tag 'I' and only 2 of the int's 4 bytes.
        Assert.Throws<AmqpDecodeException>(() =>
        {
            var reader = new AmqpReader(Hex("00000005 01 6B 49 0000 0000"));
            reader.ReadFieldTable();
        });
    }

    [Fact]
    public void Excessive_nesting_is_rejected_instead_of_overflowing_the_stack()
    {
        // 100 arrays, each holding the next: 'A' len [ 'A' len [ ... ] ].
        const int depth = 100;
        var bytes = new List<byte>();
        for (int i = 0; i < depth; i++)
        {
            int contentLength = (depth - 1 - i) * 5;
            bytes.Add((byte)'A');
            bytes.AddRange(
                new[]
                {
                    (byte)(contentLength >> 24),
                    (byte)(contentLength >> 16),
                    (byte)(contentLength >> 8),
                    (byte)contentLength,
                }
            );
        }
        var ex = Assert.Throws<AmqpDecodeException>(() =>
        {
            var reader = new AmqpReader(bytes.ToArray());
            reader.ReadFieldValue();
        });
        Assert.Contains("deeper", ex.Message);
    }

    [Fact]
    public void Conversions_from_csharp_values_pick_the_natural_tags()
    {
        Assert.Equal(FieldValueType.LongString, ((FieldValue)"s").Type);
        Assert.Equal(FieldValueType.Int32, ((FieldValue)1).Type);
        Assert.Equal(FieldValueType.Int64, ((FieldValue)1L).Type);
        Assert.Equal(FieldValueType.Boolean, ((FieldValue)true).Type);
        Assert.Equal(FieldValueType.ByteArray, ((FieldValue)new byte[] { 1 }).Type);
        Assert.Equal(FieldValueType.Float64, ((FieldValue)1.0).Type);
        Assert.Equal(FieldValueType.Void, ((FieldValue)(string?)null).Type);
        Assert.Equal(FieldValueType.Void, default(FieldValue).Type);

        var fromObjects = FieldTable.FromObjects(
            new Dictionary<string, object?>
            {
                ["n"] = 7,
                ["s"] = "v",
                ["nested"] = new Dictionary<string, object?> { ["x"] = 1L },
                ["list"] = new List<object?> { "a", 2 },
                ["dec"] = 1.25m,
                ["none"] = null,
            }
        );
        Assert.Equal(FieldValueType.Int32, fromObjects["n"].Type);
        Assert.Equal(FieldValueType.Table, fromObjects["nested"].Type);
        Assert.Equal(FieldValueType.Array, fromObjects["list"].Type);
        Assert.Equal(new AmqpDecimal(2, 125), fromObjects["dec"].AsDecimal());
        Assert.Equal(FieldValueType.Void, fromObjects["none"].Type);
        Assert.Throws<ArgumentException>(() => FieldValue.FromObject(new object()));
    }

    [Fact]
    public void Byte_array_conversion_copies_so_later_changes_do_not_leak_in()
    {
        byte[] source = [1, 2, 3];
        FieldValue value = source;
        source[0] = 99;
        Assert.Equal(new byte[] { 1, 2, 3 }, value.AsBytes().ToArray());
    }

    [Fact]
    public void Lookup_and_order()
    {
        var table = new FieldTable
        {
            ["b"] = 1,
            ["a"] = 2,
            ["b"] = 3,
        };
        Assert.Equal(["b", "a"], table.Keys);
        Assert.Equal(3, table["b"].AsInt64());
        Assert.True(table.TryGetValue("a", out var a) && a.AsInt64() == 2);
        Assert.False(table.ContainsKey("c"));
        Assert.Throws<KeyNotFoundException>(() => table["c"]);

        var extended = table.With("c", "x");
        Assert.Equal(["b", "a", "c"], extended.Keys);
        Assert.Equal(2, table.Count);
        Assert.NotEqual(table, extended);
        Assert.NotEqual(new FieldTable { ["a"] = 1, ["b"] = 2 }, new FieldTable { ["b"] = 2, ["a"] = 1 });
        Assert.NotEqual(new FieldTable { ["a"] = 1 }, new FieldTable { ["a"] = 1L });
        Assert.NotEqual(new FieldTable { ["a"] = 0.0 }, new FieldTable { ["a"] = -0.0 });
        Assert.Equal(new FieldTable { ["a"] = double.NaN }, new FieldTable { ["a"] = double.NaN });
    }

    [Fact]
    public void Key_longer_than_255_bytes_is_refused_on_encode()
    {
        var table = new FieldTable { [new string('k', 256)] = 1 };
        var buffer = new System.Buffers.ArrayBufferWriter<byte>();
        Assert.Throws<ArgumentException>(() =>
        {
            var writer = new AmqpWriter(buffer);
            writer.WriteFieldTable(table);
        });
        Assert.Equal(0, buffer.WrittenCount);
    }
}
