namespace System.Runtime.CompilerServices;

/// <summary>Lets records and init accessors compile for netstandard2.0 (the compiler only needs the type to
/// exist).</summary>
internal static class IsExternalInit { }
