import TroveCore

/// The error codes of the keyed-archive layer. Every archive failure is a ``PlistError`` with one
/// of these codes (or a limit code of the format layer), a message naming the class and the
/// object involved, and the key path from the archive's top-level key to the value.
extension PlistError.Code {
    /// The plist is not a keyed archive: `$archiver` is not `NSKeyedArchiver`, `$version` is not
    /// 100000, or `$top` or `$objects` is missing or of the wrong kind.
    public static let archiveInvalid = PlistError.Code("archive-invalid")
    /// A reference (UID) is past the end of `$objects`, or a reference was expected and something
    /// else was found.
    public static let archiveBadReference = PlistError.Code("archive-bad-reference")
    /// An object's `$class` is missing, does not lead to a class record (`$classname`,
    /// `$classes`), or the class records refer to each other in a cycle.
    public static let archiveBadClass = PlistError.Code("archive-bad-class")
    /// Secure decoding met an object whose class is not in the allowed set.
    public static let archiveClassNotAllowed = PlistError.Code("archive-class-not-allowed")
    /// No registered type decodes an object's class (or any class of its `$classes` chain).
    public static let archiveUnknownClass = PlistError.Code("archive-unknown-class")
    /// A key an object's decoder asked for is not in the archive, or holds `$null`.
    public static let archiveMissingKey = PlistError.Code("archive-missing-key")
    /// A value was asked for while it was still being decoded (a reference cycle) by a plain
    /// `decode`; decode such references with ``ArchiveDecoder/decodeDeferred(_:forKey:assign:)``.
    public static let archiveCycle = PlistError.Code("archive-cycle")
    /// An object's own `init(from:)` or `encode(to:)` failed with an error of its own; the
    /// original is the ``PlistError/underlyingError``.
    public static let archiveObjectFailed = PlistError.Code("archive-object-failed")
}

extension PlistError {
    /// An archive-layer error at `path`.
    static func archive(_ code: Code, _ message: String, at path: [PlistKeyPath.Component]) -> PlistError {
        PlistError(code, keyPath: PlistKeyPath(components: path), message)
    }
}
