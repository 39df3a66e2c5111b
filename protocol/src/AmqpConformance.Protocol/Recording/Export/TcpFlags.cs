namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>TCP flags used by the synthesized segments.</summary>
[Flags]
internal enum TcpFlags : byte
{
    None = 0,
    Fin = 0x01,
    Syn = 0x02,
    Psh = 0x08,
    Ack = 0x10,
}
