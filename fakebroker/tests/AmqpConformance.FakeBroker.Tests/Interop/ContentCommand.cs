using AmqpConformance.Protocol;
using AmqpConformance.Protocol.Recording;

namespace AmqpConformance.FakeBroker.Tests.Interop;

/// <summary>A content-carrying command (basic.publish, basic.deliver, ...) as it appears in a frame log: the method
/// frame, its content header, and the body frames that followed on the same channel.</summary>
internal sealed class ContentCommand(FrameRecord method)
{
    public FrameRecord Method { get; } = method;
    public FrameRecord? Header { get; private set; }
    public List<FrameRecord> Bodies { get; } = [];

    public long DeclaredBodySize => Header?.DeclaredBodySize ?? -1;

    /// <summary>Groups one direction of a log into content commands, per channel (other channels' frames may sit
    /// between).</summary>
    public static List<ContentCommand> From(
        IEnumerable<FrameRecord> frames,
        FrameDirection direction,
        string methodName
    )
    {
        var commands = new List<ContentCommand>();
        var open = new Dictionary<ushort, ContentCommand>();
        foreach (FrameRecord frame in frames.Where(f => f.Direction == direction))
        {
            switch (frame.Type)
            {
                case FrameType.Method:
                    open.Remove(frame.Channel);
                    if (frame.MethodName == methodName)
                    {
                        var command = new ContentCommand(frame);
                        commands.Add(command);
                        open[frame.Channel] = command;
                    }
                    break;
                case FrameType.Header
                    when open.TryGetValue(frame.Channel, out ContentCommand? command) && command.Header is null:
                    command.Header = frame;
                    break;
                case FrameType.Body when open.TryGetValue(frame.Channel, out ContentCommand? command):
                    command.Bodies.Add(frame);
                    break;
            }
        }
        return commands;
    }
}
