using System.Buffers;
using System.IO.Pipelines;
using AmqpConformance.Harness.Writers;

namespace AmqpConformance.SelfTest.Zoo.Bodies;

/// <summary>
/// DELIBERATELY BROKEN: an inline writer that, when a command's body owner is an <see cref="IMemoryOwner{T}"/> of bytes
/// (PR #1913 style, a rented buffer handed over with the publish), frames the body from the owner's memory rather than
/// from <see cref="OutgoingCommand.Body"/>, "since the owner is what keeps the bytes alive": it takes the first
/// Body.Length bytes of <c>owner.Memory</c>. That is the body only when the body starts at the start of the owner's
/// memory; a body that is a slice further into the owned buffer (a serializer that reserved a prefix, a message packed
/// after another in one rental) goes out as the bytes in front of it. Bodies without an owner, or whose owner is not an
/// <see cref="IMemoryOwner{T}"/>, are right.
/// </summary>
public sealed class OwnerMemoryPreferredWriter(WriterContext context)
    : InlineZooWriter(context, "owner-memory-preferred")
{
    /// <inheritdoc />
    protected override void WriteCommand(PipeWriter output, in OutgoingCommand command, int frameMax)
    {
        ReadOnlySpan<byte> body = command.Body.Span;
        // BUG: the owner's memory is not the body; the body may start anywhere in it.
        if (command.BodyOwner is IMemoryOwner<byte> owner && owner.Memory.Length >= command.Body.Length)
            body = owner.Memory.Span[..command.Body.Length];
        CommandFraming.Write(output, command, body, frameMax);
    }
}
