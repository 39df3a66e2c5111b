using System.Buffers;
using System.Buffers.Binary;
using AmqpConformance.Protocol;

namespace AmqpConformance.Harness.Tests.Writers.Support;

/// <summary>One frame found in captured bytes.</summary>
public sealed record WireFrame(long Offset, FrameType Type, ushort Channel, byte[] Payload, bool EndValid)
{
    public long End => Offset + Payload.Length + AmqpConstants.FrameOverhead;
}

/// <summary>One basic.publish command assembled from consecutive frames.</summary>
public sealed record WirePublish(ushort Channel, int FirstFrameIndex, byte[] Body, int BodyFrames, long EndOffset);

/// <summary>What the captured bytes contained, and everything wrong with them as a sequence of whole publish commands.</summary>
public sealed record WireAnalysis(IReadOnlyList<WireFrame> Frames, IReadOnlyList<WirePublish> Publishes, IReadOnlyList<string> Violations)
{
    public override string ToString() => Violations.Count == 0
        ? $"{Frames.Count} frames, {Publishes.Count} publishes, no violations"
        : $"{Frames.Count} frames, {Publishes.Count} publishes, {Violations.Count} violation(s):\n  " + string.Join("\n  ", Violations.Take(20));
}

/// <summary>Parses captured client bytes and checks the command shape a writer must produce.</summary>
public static class WireParser
{
    public static WireAnalysis Analyze(byte[] bytes, int frameMax, int skipPrefix = 0)
    {
        var frames = new List<WireFrame>();
        var violations = new List<string>();
        var buffer = new ReadOnlySequence<byte>(bytes, skipPrefix, bytes.Length - skipPrefix);
        long offset = skipPrefix;
        while (true)
        {
            long before = buffer.Length;
            var status = FrameReader.TryReadFrame(ref buffer, int.MaxValue, out var raw);
            if (status == FrameReadStatus.NeedMoreData)
            {
                if (buffer.Length > 0) violations.Add($"{buffer.Length} trailing byte(s) at offset {offset} are not a whole frame (torn frame)");
                break;
            }
            if (status == FrameReadStatus.PayloadTooLarge)
            {
                violations.Add($"frame at offset {offset} claims {raw.ClaimedSize} bytes: stream is corrupt");
                break;
            }
            frames.Add(new WireFrame(offset, raw.Type, raw.Channel, raw.Payload.ToArray(), raw.EndValid));
            if (!raw.EndValid) violations.Add($"frame at offset {offset} ends with 0x{raw.EndOctet:X2}, not 0xCE (torn or corrupt frame)");
            if (frameMax != 0 && raw.WireLength > frameMax) violations.Add($"frame at offset {offset} is {raw.WireLength} bytes, more than frame_max {frameMax}");
            if (!Enum.IsDefined(raw.Type)) violations.Add($"frame at offset {offset} has unknown type {raw.TypeOctet}");
            offset += before - buffer.Length;
        }

        var publishes = new List<WirePublish>();
        int maxBody = AmqpConstants.MaxBodyFramePayload(frameMax);
        for (int i = 0; i < frames.Count;)
        {
            var f = frames[i];
            if (f.Type != FrameType.Method || !IsPublish(f.Payload))
            {
                if (f.Type != FrameType.Method) violations.Add($"frame #{i} ({f.Type} ch{f.Channel} at {f.Offset}) is not part of any command (interleaved or stray)");
                i++;
                continue;
            }
            if (i + 1 >= frames.Count || frames[i + 1].Type != FrameType.Header || frames[i + 1].Channel != f.Channel)
            {
                violations.Add($"basic.publish frame #{i} at {f.Offset} is not followed by its content header (interleaved or missing)");
                i++;
                continue;
            }
            long declared = (long)BinaryPrimitives.ReadUInt64BigEndian(frames[i + 1].Payload.AsSpan(4));
            var body = new byte[declared];
            long got = 0;
            int j = i + 2, bodyFrames = 0;
            while (got < declared)
            {
                if (j >= frames.Count) { violations.Add($"publish #{publishes.Count} (frame #{i}) is missing body bytes: {got} of {declared}"); break; }
                var b = frames[j];
                if (b.Type != FrameType.Body || b.Channel != f.Channel)
                {
                    violations.Add($"publish #{publishes.Count} (frame #{i}): frame #{j} ({b.Type} ch{b.Channel}) came before its body was complete ({got} of {declared}) - interleaved");
                    break;
                }
                if (got + b.Payload.Length > declared) { violations.Add($"publish #{publishes.Count}: body frames exceed the declared size {declared}"); break; }
                if (got + b.Payload.Length < declared && b.Payload.Length != maxBody)
                    violations.Add($"publish #{publishes.Count}: body frame #{j} carries {b.Payload.Length} bytes but is not the last (expected {maxBody})");
                b.Payload.CopyTo(body, got);
                got += b.Payload.Length;
                bodyFrames++;
                j++;
            }
            publishes.Add(new WirePublish(f.Channel, i, body, bodyFrames, frames[j - 1].End));
            i = j;
        }
        return new WireAnalysis(frames, publishes, violations);
    }

    private static bool IsPublish(byte[] methodPayload) =>
        methodPayload.Length >= 4
        && BinaryPrimitives.ReadUInt16BigEndian(methodPayload) == BasicPublish.ClassIdValue
        && BinaryPrimitives.ReadUInt16BigEndian(methodPayload.AsSpan(2)) == BasicPublish.MethodIdValue;
}
