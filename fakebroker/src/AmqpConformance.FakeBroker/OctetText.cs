using System.Buffers;
using System.Globalization;
using System.Text;

namespace AmqpConformance.FakeBroker;

/// <summary>Shows bytes in reply texts and findings: hex pairs a person can compare with a hex dump or Wireshark,
/// at most <see cref="MaxShown"/> of them, saying how many there were in all.</summary>
internal static class OctetText
{
    /// <summary>How many bytes a description shows at most.</summary>
    public const int MaxShown = 16;

    /// <summary>"all 5 octets = 00 3c 00 28 ce" or "first 16 of 4100 octets = 00 3c ...".</summary>
    public static string Describe(in ReadOnlySequence<byte> payload)
    {
        int n = (int)Math.Min(payload.Length, MaxShown);
        Span<byte> shown = stackalloc byte[MaxShown];
        payload.Slice(0, n).CopyTo(shown);
        return Describe(shown[..n], payload.Length);
    }

    /// <summary>Describes <paramref name="shown"/>, the first bytes of <paramref name="total"/>.</summary>
    public static string Describe(ReadOnlySpan<byte> shown, long total)
    {
        if (shown.Length > MaxShown)
            shown = shown[..MaxShown];
        if (total == 0)
            return "no octets";
        string prefix =
            shown.Length >= total
                ? $"all {total.ToString(CultureInfo.InvariantCulture)} octets = "
                : $"first {shown.Length.ToString(CultureInfo.InvariantCulture)} of {total.ToString(CultureInfo.InvariantCulture)} octets = ";
        return prefix + Hex(shown);
    }

    /// <summary>Lower-case hex pairs separated by spaces ("41 4d 51 50").</summary>
    public static string Hex(ReadOnlySpan<byte> bytes)
    {
        var sb = new StringBuilder(bytes.Length * 3);
        for (int i = 0; i < bytes.Length; i++)
        {
            if (i > 0)
                sb.Append(' ');
            sb.Append(bytes[i].ToString("x2", CultureInfo.InvariantCulture));
        }
        return sb.ToString();
    }

    /// <summary>Bytes that may be text (a protocol header): printable ASCII in quotes, the rest as \xNN, then the
    /// hex.</summary>
    public static string Quoted(ReadOnlySpan<byte> bytes)
    {
        var sb = new StringBuilder("\"");
        foreach (byte b in bytes)
        {
            if (b is >= 0x20 and < 0x7f && b != (byte)'"' && b != (byte)'\\')
                sb.Append((char)b);
            else
                sb.Append(CultureInfo.InvariantCulture, $"\\x{b:x2}");
        }
        return sb.Append("\" (").Append(Hex(bytes)).Append(')').ToString();
    }
}
