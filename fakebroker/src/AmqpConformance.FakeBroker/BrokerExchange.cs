using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker;

/// <summary>An exchange of a virtual host and its bindings. Mutated only under the virtual host's lock.</summary>
internal sealed class BrokerExchange(
    string name,
    ExchangeKind kind,
    bool durable,
    bool autoDelete,
    bool isInternal,
    FieldTable arguments
)
{
    public string Name { get; } = name;
    public ExchangeKind Kind { get; } = kind;
    public bool Durable { get; } = durable;
    public bool AutoDelete { get; } = autoDelete;
    public bool Internal { get; } = isInternal;
    public FieldTable Arguments { get; } = arguments;
    public List<Binding> Bindings { get; } = [];

    /// <summary>Parses an exchange type name; null when unknown.</summary>
    public static ExchangeKind? ParseKind(string type) =>
        type switch
        {
            "direct" => ExchangeKind.Direct,
            "fanout" => ExchangeKind.Fanout,
            "topic" => ExchangeKind.Topic,
            "headers" => ExchangeKind.Headers,
            _ => null,
        };

    /// <summary>Whether a binding matches a message with <paramref name="routingKey"/> and
    /// <paramref name="headers"/>.</summary>
    public bool Matches(Binding binding, string routingKey, FieldTable? headers) =>
        Kind switch
        {
            ExchangeKind.Fanout => true,
            ExchangeKind.Direct => string.Equals(binding.RoutingKey, routingKey, StringComparison.Ordinal),
            ExchangeKind.Topic => TopicMatcher.Matches(binding.RoutingKey, routingKey),
            ExchangeKind.Headers => HeadersMatch(binding.Arguments, headers),
            _ => false,
        };

    private static bool HeadersMatch(FieldTable bindingArguments, FieldTable? headers)
    {
        bool matchAll = !(
            bindingArguments.TryGetValue("x-match", out var mode)
            && mode.Value is string s
            && s.StartsWith("any", StringComparison.Ordinal)
        );
        int considered = 0,
            matched = 0;
        foreach (var (key, expected) in bindingArguments)
        {
            if (key.StartsWith("x-", StringComparison.Ordinal))
                continue;
            considered++;
            if (
                headers is not null
                && headers.TryGetValue(key, out var actual)
                && (expected.Type == FieldValueType.Void || expected.Equals(actual))
            )
                matched++;
        }
        return matchAll ? matched == considered : matched > 0;
    }
}

/// <summary>A binding from an exchange to a queue or to another exchange.</summary>
internal sealed record Binding(string Destination, bool DestinationIsExchange, string RoutingKey, FieldTable Arguments);
