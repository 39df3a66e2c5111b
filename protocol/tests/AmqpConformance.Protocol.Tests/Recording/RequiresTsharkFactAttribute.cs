namespace AmqpConformance.Protocol.Tests.Recording;

/// <summary>A fact that runs only where <c>tshark</c> is on the PATH (CI installs it; see .ci/run).</summary>
public sealed class RequiresTsharkFactAttribute : FactAttribute
{
    public RequiresTsharkFactAttribute()
    {
        if (Tshark.Path is null)
            Skip = "tshark is not installed (apt-get install tshark; .ci/run installs it)";
    }
}
