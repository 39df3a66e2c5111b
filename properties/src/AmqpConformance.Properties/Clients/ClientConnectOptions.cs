namespace AmqpConformance.Properties.Clients;

/// <summary>Where and how a client adapter connects for one client-level case.</summary>
/// <param name="Host">The loopback address of the fault proxy in front of the fake broker.</param>
/// <param name="Port">Its port.</param>
/// <param name="FrameMax">The frame_max to request (0 = unlimited); the broker accepts whatever the client asks
/// for.</param>
/// <param name="Confirms">Whether to enable publisher confirms on the channels.</param>
public sealed record ClientConnectOptions(string Host, int Port, int FrameMax, bool Confirms);
