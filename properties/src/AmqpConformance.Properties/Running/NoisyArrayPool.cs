using System.Buffers;

namespace AmqpConformance.Properties.Running;

/// <summary>
/// The writer's pool as a case with timing noise (<see cref="Scenarios.Scenario.Noise"/>), or one where disposal races
/// a call (<see cref="Scenarios.ScriptActionKind.DisposeRacingCall"/>), hands it: every rent and return goes to the
/// case's <see cref="Harness.Pooling.TrackingArrayPool"/>, and one rent in four first gives up the time slice, one in
/// four spins a little (up to about 70 µs). Why: writers rent on their way in (copying a body, building a command)
/// before they queue or take a lock, and that stretch is where a call racing disposal or a fault slips past the
/// writer's checks; the output's own noise (<see cref="ControlledOutput"/>) comes only later, once the call is writing.
/// </summary>
/// <remarks>Seeded, like the output's noise. Thread-safe. The ledger is the tracking pool's: this adds no state of its
/// own.</remarks>
internal sealed class NoisyArrayPool(ArrayPool<byte> inner, int seed) : ArrayPool<byte>
{
    private readonly TimingNoise _noise = new(seed);

    /// <inheritdoc />
    public override byte[] Rent(int minimumLength)
    {
        _noise.Perturb(4);
        return inner.Rent(minimumLength);
    }

    /// <inheritdoc />
    public override void Return(byte[] array, bool clearArray = false) => inner.Return(array, clearArray);
}
