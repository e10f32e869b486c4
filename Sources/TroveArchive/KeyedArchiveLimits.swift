import TroveCore

/// Bounds the archive layer enforces, in the style of ``PlistLimits``, so that a hostile archive
/// fails with a ``PlistError`` naming the limit rather than exhausting the stack, memory or time.
public struct KeyedArchiveLimits: Sendable, Hashable {
    /// The highest ``maxDepth`` any configuration may set. Decoding an object calls its
    /// `init(from:)`, which decodes the objects it holds, so nesting costs stack: 1,024 levels
    /// of a few frames each stay well inside the 512 KB of a secondary thread in a release
    /// build.
    public static let depthCeiling = 1_024

    /// The most entries `$objects` may have. Exceeding it is ``PlistError/Code/sizeLimit``.
    public var maxObjects: Int

    /// The deepest nesting of objects decoded through one another (an object's `init(from:)`
    /// decoding an object that decodes an object ...), and of values expanded into a plain
    /// property list. Exceeding it is ``PlistError/Code/depthLimit``.
    public var maxDepth: Int {
        didSet { maxDepth = min(max(maxDepth, 0), Self.depthCeiling) }
    }

    /// The most values a conversion into a plain property list or a keyed dictionary tree may
    /// produce, counting a shared object once per reference (what expanding it costs).
    /// Exceeding it is ``PlistError/Code/expansionLimit``.
    public var maxExpandedValues: Int

    /// The limits of the property-list layer under the archive.
    public var plist: PlistLimits

    /// Limits with the given values.
    public init(
        maxObjects: Int = 10_000_000, maxDepth: Int = 512, maxExpandedValues: Int = 10_000_000,
        plist: PlistLimits = .default
    ) {
        self.maxObjects = maxObjects
        self.maxDepth = min(max(maxDepth, 0), Self.depthCeiling)
        self.maxExpandedValues = maxExpandedValues
        self.plist = plist
    }

    /// Counts far above any real archive (the largest in the corpus has 3,799 objects).
    public static let `default` = KeyedArchiveLimits()
}
