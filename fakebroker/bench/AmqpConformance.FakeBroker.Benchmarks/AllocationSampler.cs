using System.Diagnostics.Tracing;
using System.Globalization;

namespace AmqpConformance.FakeBroker.Benchmarks;

/// <summary>Which types the process allocates, sampled from the runtime's GC allocation-tick events (one event about
/// every 100 KB allocated, naming the type that crossed the mark), so a measurement can say what its bytes were.
/// For <c>--trace-allocations</c>: the listener costs a little, so it stays off otherwise.</summary>
internal sealed class AllocationSampler : EventListener
{
    private const EventKeywords GcKeyword = (EventKeywords)0x1;
    private readonly Dictionary<string, long> _bytesByType = [];
    private readonly object _gate = new();
    private bool _enabled;

    protected override void OnEventSourceCreated(EventSource source)
    {
        if (source.Name == "Microsoft-Windows-DotNETRuntime") EnableEvents(source, EventLevel.Verbose, GcKeyword);
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (!e.EventName!.StartsWith("GCAllocationTick", StringComparison.Ordinal) || e.Payload is null) return;
        int typeAt = e.PayloadNames!.IndexOf("TypeName"), amountAt = e.PayloadNames.IndexOf("AllocationAmount64");
        if (typeAt < 0 || amountAt < 0) return;
        string type = e.Payload[typeAt] as string ?? "?";
        long amount = Convert.ToInt64(e.Payload[amountAt], CultureInfo.InvariantCulture);
        lock (_gate)
        {
            if (!_enabled) return;
            _bytesByType[type] = _bytesByType.GetValueOrDefault(type) + amount;
        }
    }

    /// <summary>Forgets what was sampled and starts counting.</summary>
    public void Start()
    {
        lock (_gate)
        {
            _bytesByType.Clear();
            _enabled = true;
        }
    }

    /// <summary>Stops counting; returns the sampled bytes per type, most first.</summary>
    public IReadOnlyList<(string Type, long Bytes)> Stop()
    {
        lock (_gate)
        {
            _enabled = false;
            return [.. _bytesByType.OrderByDescending(p => p.Value).Select(p => (p.Key, p.Value))];
        }
    }
}
