using System.Reflection;
using AmqpConformance.Protocol;
using AmqpConformance.TestSupport;

namespace AmqpConformance.Protocol.Tests;

/// <summary>decode(encode(x)) == x for every method record, with every argument set away from its default.</summary>
public class MethodRoundTripTests
{
    public static TheoryData<string> MethodTypeNames()
    {
        var data = new TheoryData<string>();
        foreach (var type in MethodCodec.KnownMethodTypes)
            data.Add(type.Name);
        return data;
    }

    [Fact]
    public void Every_method_the_brief_lists_is_known()
    {
        string[] expected =
        [
            "ConnectionStart",
            "ConnectionStartOk",
            "ConnectionSecure",
            "ConnectionSecureOk",
            "ConnectionTune",
            "ConnectionTuneOk",
            "ConnectionOpen",
            "ConnectionOpenOk",
            "ConnectionClose",
            "ConnectionCloseOk",
            "ConnectionBlocked",
            "ConnectionUnblocked",
            "ConnectionUpdateSecret",
            "ConnectionUpdateSecretOk",
            "ChannelOpen",
            "ChannelOpenOk",
            "ChannelFlow",
            "ChannelFlowOk",
            "ChannelClose",
            "ChannelCloseOk",
            "ExchangeDeclare",
            "ExchangeDeclareOk",
            "ExchangeDelete",
            "ExchangeDeleteOk",
            "ExchangeBind",
            "ExchangeBindOk",
            "ExchangeUnbind",
            "ExchangeUnbindOk",
            "QueueDeclare",
            "QueueDeclareOk",
            "QueueBind",
            "QueueBindOk",
            "QueuePurge",
            "QueuePurgeOk",
            "QueueDelete",
            "QueueDeleteOk",
            "QueueUnbind",
            "QueueUnbindOk",
            "BasicQos",
            "BasicQosOk",
            "BasicConsume",
            "BasicConsumeOk",
            "BasicCancel",
            "BasicCancelOk",
            "BasicPublish",
            "BasicReturn",
            "BasicDeliver",
            "BasicGet",
            "BasicGetOk",
            "BasicGetEmpty",
            "BasicAck",
            "BasicReject",
            "BasicRecoverAsync",
            "BasicRecover",
            "BasicRecoverOk",
            "BasicNack",
            "ConfirmSelect",
            "ConfirmSelectOk",
            "TxSelect",
            "TxSelectOk",
            "TxCommit",
            "TxCommitOk",
            "TxRollback",
            "TxRollbackOk",
        ];
        Assert.Equal(expected.Order(), MethodCodec.KnownMethodTypes.Select(t => t.Name).Order());
    }

    [Theory]
    [InlineData(typeof(ExchangeUnbindOk), 40, 51, "exchange.unbind-ok", false)]
    [InlineData(typeof(BasicNack), 60, 120, "basic.nack", false)]
    [InlineData(typeof(BasicGetOk), 60, 71, "basic.get-ok", true)]
    [InlineData(typeof(BasicDeliver), 60, 60, "basic.deliver", true)]
    [InlineData(typeof(BasicReturn), 60, 50, "basic.return", true)]
    [InlineData(typeof(ConfirmSelect), 85, 10, "confirm.select", false)]
    [InlineData(typeof(ConnectionUpdateSecret), 10, 70, "connection.update-secret", false)]
    [InlineData(typeof(ConnectionBlocked), 10, 60, "connection.blocked", false)]
    [InlineData(typeof(TxRollbackOk), 90, 31, "tx.rollback-ok", false)]
    public void Ids_names_and_content_flags_match_the_spec(
        Type type,
        int classId,
        int methodId,
        string name,
        bool hasContent
    )
    {
        var method = (IAmqpMethod)Activator.CreateInstance(type)!;
        Assert.Equal(classId, method.ClassId);
        Assert.Equal(methodId, method.MethodId);
        Assert.Equal(name, method.Name);
        Assert.Equal(hasContent, method.HasContent);
        Assert.Equal(name, MethodCodec.NameOf((ushort)classId, (ushort)methodId));
    }

    [Fact]
    public void Exactly_the_four_content_methods_have_content()
    {
        var withContent = MethodCodec
            .KnownMethodTypes.Select(t => (IAmqpMethod)Activator.CreateInstance(t)!)
            .Where(m => m.HasContent)
            .Select(m => m.Name)
            .Order();
        Assert.Equal(["basic.deliver", "basic.get-ok", "basic.publish", "basic.return"], withContent);
    }

    [Theory]
    [MemberData(nameof(MethodTypeNames))]
    public void Round_trip_with_every_argument_set(string typeName)
    {
        var method = Filled(typeName, seed: 1);
        AssertRoundTrip(method);
        if (method.GetType().GetProperties().Any(p => p.CanWrite))
            Assert.NotEqual(Activator.CreateInstance(method.GetType()), method); // the fill really changed something
    }

    [Theory]
    [MemberData(nameof(MethodTypeNames))]
    public void Round_trip_with_a_second_bit_pattern_and_defaults(string typeName)
    {
        AssertRoundTrip(Filled(typeName, seed: 2));
        AssertRoundTrip((IAmqpMethod)Activator.CreateInstance(TypeOf(typeName))!);
    }

    [Theory]
    [MemberData(nameof(MethodTypeNames))]
    public void Cut_short_arguments_are_rejected(string typeName)
    {
        byte[] payload = MethodCodec.ToPayload(Filled(typeName, seed: 1));
        for (int length = 0; length < payload.Length; length++)
        {
            var ex = Assert.Throws<AmqpDecodeException>(() => MethodCodec.Decode(payload.AsSpan(0, length)));
            Assert.True(ex.Offset >= 0 && ex.Offset <= length, $"offset {ex.Offset} for length {length}: {ex.Message}");
        }
    }

    [Theory]
    [MemberData(nameof(MethodTypeNames))]
    public void Trailing_bytes_are_rejected(string typeName)
    {
        byte[] payload = [.. MethodCodec.ToPayload(Filled(typeName, seed: 1)), 0x00];
        var ex = Assert.Throws<AmqpDecodeException>(() => MethodCodec.Decode(payload));
        Assert.Contains("trailing", ex.Message);
        Assert.Equal(payload.Length - 1, ex.Offset);
    }

    [Fact]
    public void Large_method_split_across_many_segments_decodes()
    {
        var method = new QueueDeclare
        {
            Queue = "big",
            Arguments = new FieldTable { ["blob"] = new byte[3000], ["text"] = new string('t', 2000) },
        };
        byte[] payload = MethodCodec.ToPayload(method);
        Assert.True(payload.Length > 5000);
        var chunks = payload.Chunk(7).ToArray();
        Assert.Equal(method, MethodCodec.Decode(Wire.Segmented(chunks)));
    }

    private static void AssertRoundTrip(IAmqpMethod method)
    {
        byte[] payload = MethodCodec.ToPayload(method);
        Assert.Equal(payload.Length, MethodCodec.EncodedLength(method));
        Assert.True(MethodCodec.TryReadIds(payload, out ushort classId, out ushort methodId));
        Assert.Equal((method.ClassId, method.MethodId), (classId, methodId));

        var decoded = MethodCodec.Decode(payload);
        Assert.Equal(method, decoded);
        Assert.Equal(method.GetHashCode(), decoded.GetHashCode());
        Assert.Equal(payload, MethodCodec.ToPayload(decoded));

        var segmented = Wire.OneBytePerSegment(payload);
        Assert.Equal(method, MethodCodec.Decode(segmented));
    }

    private static Type TypeOf(string name) => MethodCodec.KnownMethodTypes.Single(t => t.Name == name);

    /// <summary>An instance whose every argument differs from its default; bit arguments follow a pattern
    /// that depends on <paramref name="seed"/>, so packing mistakes show.</summary>
    internal static IAmqpMethod Filled(string typeName, int seed)
    {
        var type = TypeOf(typeName);
        object method = Activator.CreateInstance(type)!;
        int index = 0;
        foreach (
            var property in type.GetProperties(BindingFlags.Public | BindingFlags.Instance)
                .Where(p => p.CanWrite && typeof(AmqpMethod).IsAssignableFrom(p.DeclaringType))
        ) // shared base records (CloseMethod...) too
        {
            index++;
            object? current = property.GetValue(method);
            object value = property.PropertyType switch
            {
                var t when t == typeof(byte) => (byte)(0x80 + index + seed),
                var t when t == typeof(ushort) => (ushort)(0x8100 + index * 3 + seed),
                var t when t == typeof(uint) => 0x8200_0000u + (uint)(index * 7 + seed),
                var t when t == typeof(ulong) => 0x8300_0000_0000_0000ul + (ulong)(index * 11 + seed),
                var t when t == typeof(bool) => seed == 1 ? !(bool)current! : (index % 2 == 0),
                var t when t == typeof(string) => $"{property.Name}-{seed}-é",
                var t when t == typeof(FieldTable) => new FieldTable
                {
                    ["k" + index] = index,
                    ["s"] = "v",
                    ["n"] = new FieldTable { ["t"] = true },
                },
                var t when t == typeof(ReadOnlyMemory<byte>) => (ReadOnlyMemory<byte>)
                    new byte[] { 0, 0xFF, (byte)index, (byte)seed, 0xC3 },
                var t => throw new InvalidOperationException($"No test value for {t} ({type.Name}.{property.Name})"),
            };
            property.SetValue(method, value);
        }
        return (IAmqpMethod)method;
    }
}
