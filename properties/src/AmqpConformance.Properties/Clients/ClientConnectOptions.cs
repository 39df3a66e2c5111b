using System.Net;

namespace AmqpConformance.Properties.Clients;

/// <summary>Where and how a client adapter connects for one client-level case.</summary>
/// <param name="Endpoint">The loopback address and port of the fault proxy in front of the fake broker (for a client
/// that takes a host name and a port: <c>Endpoint.Address.ToString()</c> and <c>Endpoint.Port</c>).</param>
/// <param name="FrameMax">The frame_max to request (0 = unlimited); the broker accepts whatever the client asks
/// for.</param>
/// <param name="Confirms">Whether to enable publisher confirms on the channels.</param>
public sealed record ClientConnectOptions(IPEndPoint Endpoint, int FrameMax, bool Confirms);
