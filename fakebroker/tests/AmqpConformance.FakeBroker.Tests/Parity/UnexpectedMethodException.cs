using AmqpConformance.Protocol;

namespace AmqpConformance.FakeBroker.Tests.Parity;

/// <summary>The server sent a method other than the one the handshake expected (typically connection.close).</summary>
internal sealed class UnexpectedMethodException(IAmqpMethod method, Type expected)
    : Exception($"expected {expected.Name}, got {method.Name}: {method}")
{
    public IAmqpMethod Method { get; } = method;
}
