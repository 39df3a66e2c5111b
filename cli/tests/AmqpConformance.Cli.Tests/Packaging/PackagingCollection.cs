namespace AmqpConformance.Cli.Tests.Packaging;

/// <summary>
/// The packaging tests share one packed feed, its consumers' global packages folder and one git clone, so they run one
/// at a time and never alongside other tests.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class PackagingCollection : ICollectionFixture<PackedFeed>
{
    /// <summary>The collection's name.</summary>
    public const string Name = "Packaging";
}
