namespace AmqpConformance.Harness.Verdicts;

/// <summary>A call's command as reassembled from the wire by the protocol's per-channel rule: a basic.publish method
/// frame, then that channel's next header frame, then its body frames up to the declared size; or, for a call without
/// content, its basic.cancel method frame alone (see <see cref="CallCorrelation"/>).</summary>
public sealed class AssembledCommand
{
    internal AssembledCommand(int? callId, ushort channel, long methodSequence, bool hasContent = true)
    {
        CallId = callId;
        HasContent = hasContent;
        Channel = channel;
        FrameSequences.Add(methodSequence);
    }

    /// <summary>The call the routing key names; null when the routing key is not a harness correlation key.</summary>
    public int? CallId { get; }

    /// <summary>Whether the command carries content (a basic.publish); false for a call's basic.cancel, a single method
    /// frame.</summary>
    public bool HasContent { get; }

    /// <summary>The channel of the method frame.</summary>
    public ushort Channel { get; }

    /// <summary>Sequences of the method, header and body frames, in wire order.</summary>
    public List<long> FrameSequences { get; } = [];

    /// <summary>Body size the header declared; null until a header arrived.</summary>
    public long? DeclaredBodySize { get; internal set; }

    /// <summary>Whether a header frame arrived whose payload could not be read (no declared size known).</summary>
    public bool HeaderUndecodable { get; internal set; }

    /// <summary>Sequence of the header frame, if one arrived.</summary>
    public long? HeaderSequence { get; internal set; }

    /// <summary>Sequences of the body frames.</summary>
    public List<long> BodySequences { get; } = [];

    /// <summary>Body bytes received so far.</summary>
    public long BodyBytes { get; internal set; }

    /// <summary>Whether the header arrived and the body reached the declared size; always, for a command without
    /// content.</summary>
    public bool Complete => !HasContent || DeclaredBodySize is { } d && BodyBytes >= d;

    /// <summary>The first frame's sequence (the method frame).</summary>
    public long FirstSequence => FrameSequences[0];

    /// <summary>The last frame's sequence.</summary>
    public long LastSequence => FrameSequences[^1];
}
