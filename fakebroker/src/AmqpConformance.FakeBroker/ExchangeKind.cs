namespace AmqpConformance.FakeBroker;

/// <summary>The exchange types the fake broker routes for.</summary>
internal enum ExchangeKind
{
    /// <summary>Routes to bindings whose key equals the routing key.</summary>
    Direct,

    /// <summary>Routes to every binding.</summary>
    Fanout,

    /// <summary>Routes by dotted-word pattern: '*' matches one word, '#' zero or more.</summary>
    Topic,

    /// <summary>Routes by message headers against binding arguments (x-match all or any).</summary>
    Headers,
}
