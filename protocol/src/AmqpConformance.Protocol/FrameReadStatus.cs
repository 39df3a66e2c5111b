namespace AmqpConformance.Protocol;

/// <summary>What <see cref="FrameReader.TryReadFrame(ref System.Buffers.ReadOnlySequence{byte}, long, out RawFrame)"/>
/// found at the start of the buffer.</summary>
public enum FrameReadStatus
{
    /// <summary>Not a whole frame yet; the buffer is unchanged. Read more and call again.</summary>
    NeedMoreData,

    /// <summary>A whole, well-formed frame; the buffer now starts after it.</summary>
    Frame,

    /// <summary>The 7-byte header claims a payload larger than allowed. Decided from the header alone; the
    /// frame's header fields are reported, the payload is empty and the buffer is unchanged. A connection
    /// would close with 501 (frame-error).</summary>
    PayloadTooLarge,

    /// <summary>A whole frame whose last octet is not 0xCE; the frame is reported (with
    /// <see cref="RawFrame.EndOctet"/>) and the buffer now starts after it. A connection would close with
    /// 501.</summary>
    BadFrameEnd,
}
