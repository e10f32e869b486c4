/// Bounds that readers and writers enforce so that hostile input fails with ``PlistError``
/// instead of exhausting the stack, memory or time.
///
/// Every limit is checked per value, never per byte, and exceeding one throws an error whose
/// ``PlistError/code`` says which kind of limit it was and whose message names the property
/// (for example "more than 512 levels of nesting (PlistLimits.maxDepth)").
///
/// Limits that follow from the input itself need no setting: a binary length or count is checked
/// against the bytes that could hold it before anything is allocated, and text formats cannot
/// decode a string longer than a small multiple of their own text.
public struct PlistLimits: Sendable, Hashable {
    /// The highest ``maxDepth`` any configuration may set.
    ///
    /// Readers, writers, `==`, `hash` and `description` use no stack per level, but releasing a
    /// nested value does: Swift destroys an array of enums recursively, at about 224 bytes of
    /// stack per level in a debug build (measured by `DeepValueTests`). 1,024 levels therefore
    /// need about 224 KB, well inside 512 KB, Foundation's default stack for secondary threads, so
    /// no setting lets a document drive its own release into a stack overflow.
    public static let depthCeiling = 1_024

    /// The deepest nesting of arrays and dictionaries accepted, from 0 to ``depthCeiling``;
    /// larger settings are lowered to the ceiling. CoreFoundation refuses more than 512 levels on
    /// macOS (128 on iOS); the default matches macOS. Exceeding it is
    /// ``PlistError/Code/depthLimit``.
    public var maxDepth: Int {
        didSet { maxDepth = Self.clampedDepth(maxDepth) }
    }

    /// The most distinct values a document may decode to, counting every element of every
    /// container. An object a binary plist shares counts once, however often it is referenced.
    /// Exceeding it is ``PlistError/Code/sizeLimit``.
    public var maxValues: Int

    /// The most values a full traversal of the document may visit, counting an object a binary
    /// plist shares once per reference: what a writer, `description` or a tree walk would expand
    /// it to. Text formats cannot share, so there it equals the value count. Writers apply it to
    /// the value they are given. Exceeding it is ``PlistError/Code/expansionLimit``.
    ///
    /// A 1 KB binary plist whose arrays each reference the next one twice, 40 levels deep, expands
    /// to 2^40 values; this limit stops it before any expanded copy is made.
    public var maxExpandedValues: Int

    /// The most bytes of string (as UTF-8) and data payload a document may hold once expanded,
    /// counting a shared binary object once per reference. Writers apply it to the value they are
    /// given. Exceeding it is ``PlistError/Code/byteLimit``.
    public var maxDecodedBytes: Int

    /// Limits with the given values. A `maxDepth` above ``depthCeiling`` is lowered to it.
    public init(
        maxDepth: Int = 512, maxValues: Int = 100_000_000, maxExpandedValues: Int = 100_000_000,
        maxDecodedBytes: Int = 1 << 32
    ) {
        self.maxDepth = Self.clampedDepth(maxDepth)
        self.maxValues = maxValues
        self.maxExpandedValues = maxExpandedValues
        self.maxDecodedBytes = maxDecodedBytes
    }

    /// CoreFoundation's macOS depth, and counts no real property list comes near: the largest
    /// files in the corpus (1 MB) hold about 40,000 values and 1 MB of strings and data.
    public static let `default` = PlistLimits()

    private static func clampedDepth(_ depth: Int) -> Int {
        min(max(depth, 0), depthCeiling)
    }
}
