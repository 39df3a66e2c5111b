using System.Text;

namespace AmqpConformance.Cli.Tests.Logging;

/// <summary>An output like a pipe whose reader stopped reading: it takes the first <c>capacity</c> characters, and then
/// every write blocks until <see cref="Release"/> (a test calls it only when done, so the writer thread can end). Until
/// then <see cref="Text"/> holds what got through.</summary>
internal sealed class StalledOutputWriter(int capacity) : TextWriter
{
    private readonly StringBuilder _taken = new();
    private readonly ManualResetEventSlim _released = new();
    private int _blockedWrites;

    public override Encoding Encoding => Encoding.UTF8;

    /// <summary>What got through before the output filled.</summary>
    public string Text
    {
        get
        {
            lock (_taken)
                return _taken.ToString();
        }
    }

    /// <summary>Whether some write is (or was) blocked on the full output.</summary>
    public bool Stalled => Volatile.Read(ref _blockedWrites) > 0;

    /// <summary>Lets blocked writes return (and drops what they carried).</summary>
    public void Release() => _released.Set();

    public override void Write(char value) => Write(value.ToString());

    public override void Write(char[] buffer, int index, int count) => Write(new string(buffer, index, count));

    public override void Write(string? value)
    {
        if (value is null)
            return;
        lock (_taken)
        {
            if (_taken.Length + value.Length <= capacity)
            {
                _taken.Append(value);
                return;
            }
        }
        Interlocked.Increment(ref _blockedWrites);
        _released.Wait(); // full: like write(2) on a pipe nobody reads, it does not return
    }

    public override void WriteLine(string? value) => Write(value + NewLine);

    public override void Flush() { }

    protected override void Dispose(bool disposing)
    {
        if (disposing)
            _released.Set();
        base.Dispose(disposing);
    }
}

/// <summary>A <see cref="StringWriter"/> that many threads may write to.</summary>
internal sealed class ConcurrentStringWriter : StringWriter
{
    private readonly object _gate = new();

    public string Text
    {
        get
        {
            lock (_gate)
                return ToString();
        }
    }

    public override void Write(char value)
    {
        lock (_gate)
            base.Write(value);
    }

    public override void Write(string? value)
    {
        lock (_gate)
            base.Write(value);
    }

    public override void Write(char[] buffer, int index, int count)
    {
        lock (_gate)
            base.Write(buffer, index, count);
    }

    public override void WriteLine(string? value)
    {
        lock (_gate)
            base.WriteLine(value);
    }
}
