namespace AmqpConformance.Protocol;

/// <summary>
/// An AMQP decimal ('D' in a field table): a scale octet and a signed 32-bit unscaled value;
/// the number is <see cref="Value"/> / 10^<see cref="Scale"/>. Kept as its two wire parts so that
/// decoding then encoding is byte-exact even for scales that <see cref="decimal"/> cannot hold.
/// </summary>
/// <param name="Scale">Number of decimal digits after the point.</param>
/// <param name="Value">The unscaled value.</param>
public readonly record struct AmqpDecimal(byte Scale, int Value)
{
    /// <summary>The value as a <see cref="decimal"/>.</summary>
    /// <exception cref="OverflowException">The scale exceeds 28, the most <see cref="decimal"/> allows.</exception>
    public decimal ToDecimal()
    {
        if (Scale > 28)
            throw new OverflowException($"AMQP decimal scale {Scale} exceeds the 28 digits System.Decimal supports.");
        long magnitude = Math.Abs((long)Value);
        return new decimal((int)(uint)magnitude, (int)(magnitude >> 32), 0, Value < 0, Scale);
    }

    /// <inheritdoc/>
    public override string ToString() =>
        Scale <= 28 ? ToDecimal().ToString(System.Globalization.CultureInfo.InvariantCulture) : $"{Value}e-{Scale}";
}
