namespace AmqpConformance.Protocol.Recording.Export;

/// <summary>How <see cref="PcapExporter"/> writes a body frame whose payload the log did not keep
/// (<see cref="FrameLogOptions.CaptureBodies"/> off).</summary>
public enum PcapUncapturedBodies
{
    /// <summary>Capture only the 7-byte frame header: the packet's captured length is less than its original length, as
    /// if captured with a small snap length. Wireshark/tshark still dissect the frame's type, channel and length
    /// (marking the packet "size limited during capture"), sequence numbers stay exact, and the file stays
    /// small.</summary>
    Truncate,

    /// <summary>Write the whole frame with a zero-filled payload. Every byte is present, so TCP reassembly and full
    /// AMQP dissection work, but the payload bytes are not the real ones and the file is as large as the
    /// traffic.</summary>
    ZeroFill,
}
