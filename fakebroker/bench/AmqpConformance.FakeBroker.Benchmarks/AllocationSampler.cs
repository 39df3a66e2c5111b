using System.Diagnostics.Tracing;
using System.Globalization;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>Which types the process allocates, sampled from the runtime's GC allocation-tick events (one event about
/// every 100 KB allocated, naming the type that crossed the mark), so a measurement can say what its bytes were.
/// For <c>--trace-allocations</c>: the listener costs a little, so it stays off otherwise.</summary>
/// <remarks>The runtime hands its events to a listener on a dispatch thread, some time after they were written: an
/// event is counted by when it was written (<see cref="EventWrittenEventArgs.TimeStamp"/>), between <see cref="Start"/>
/// and <see cref="StopAsync"/>, and <see cref="StopAsync"/> waits for the late ones. Counted by arrival instead, the 16
/// MiB of commands a race publisher builds just before its clock starts showed up as ~60 KB per 1 MiB
/// message.</remarks>
internal sealed class AllocationSampler : EventListener
{
    private const EventKeywords GcKeyword = (EventKeywords)0x1;

    /// <summary>How long <see cref="StopAsync"/> waits for events written before it to arrive.</summary>
    private static readonly TimeSpan DispatchLag = TimeSpan.FromMilliseconds(500);

    private readonly Dictionary<string, long> _bytesByType = [];
    private readonly object _gate = new();
    private bool _enabled;
    private DateTime _from;
    private DateTime _to = DateTime.MaxValue;

    protected override void OnEventSourceCreated(EventSource source)
    {
        if (source.Name == "Microsoft-Windows-DotNETRuntime")
            EnableEvents(source, EventLevel.Verbose, GcKeyword);
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (!e.EventName!.StartsWith("GCAllocationTick", StringComparison.Ordinal) || e.Payload is null)
            return;
        int typeAt = e.PayloadNames!.IndexOf("TypeName"),
            amountAt = e.PayloadNames.IndexOf("AllocationAmount64");
        if (typeAt < 0 || amountAt < 0)
            return;
        string type = e.Payload[typeAt] as string ?? "?";
        long amount = Convert.ToInt64(e.Payload[amountAt], CultureInfo.InvariantCulture);
        DateTime written = e.TimeStamp.ToUniversalTime();
        lock (_gate)
        {
            if (!_enabled || written < _from || written > _to)
                return;
            _bytesByType[type] = _bytesByType.GetValueOrDefault(type) + amount;
        }
    }

    /// <summary>Forgets what was sampled and counts what is allocated from now on.</summary>
    public void Start()
    {
        lock (_gate)
        {
            _bytesByType.Clear();
            _from = DateTime.UtcNow;
            _to = DateTime.MaxValue;
            _enabled = true;
        }
    }

    /// <summary>Stops counting at this moment; once the events written before it have arrived, returns the sampled
    /// bytes per type, most first.</summary>
    public async Task<IReadOnlyList<(string Type, long Bytes)>> StopAsync()
    {
        lock (_gate)
            _to = DateTime.UtcNow;
        await Task.Delay(DispatchLag).ConfigureAwait(false);
        lock (_gate)
        {
            _enabled = false;
            return [.. _bytesByType.OrderByDescending(p => p.Value).Select(p => (p.Key, p.Value))];
        }
    }
}
