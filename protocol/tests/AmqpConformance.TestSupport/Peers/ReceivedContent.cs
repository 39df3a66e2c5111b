using AmqpConformance.Protocol;

namespace AmqpConformance.TestSupport.Peers;

/// <summary>A content command a <see cref="AmqpPeer"/> read whole: the method, its header, and the body
/// reassembled.</summary>
/// <typeparam name="T">The content method (basic.publish, basic.deliver, basic.get-ok, basic.return).</typeparam>
/// <param name="Channel">The channel of all the command's frames.</param>
/// <param name="Method">The method frame, decoded.</param>
/// <param name="Header">The content header, decoded.</param>
/// <param name="Body">The body frames' payloads laid end to end.</param>
/// <param name="BodyFrames">How many body frames carried the body.</param>
public sealed record ReceivedContent<T>(ushort Channel, T Method, ContentHeader Header, byte[] Body, int BodyFrames)
    where T : IAmqpMethod;
