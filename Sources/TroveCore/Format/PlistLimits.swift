/// Bounds a reader enforces so that hostile input fails with ``PlistError`` instead of exhausting
/// the stack or memory.
public struct PlistLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and dictionaries accepted. CoreFoundation refuses more than
    /// 512 levels on macOS (128 on iOS); the default matches macOS.
    public var maxDepth: Int
    /// The most values a single document may decode to, counting every element of every
    /// container. Shared binary objects count once per object, not once per reference.
    public var maxValues: Int

    /// Limits with the given values.
    public init(maxDepth: Int = 512, maxValues: Int = 100_000_000) {
        self.maxDepth = maxDepth
        self.maxValues = maxValues
    }

    /// CoreFoundation's macOS depth and a generous value count.
    public static let `default` = PlistLimits()
}
