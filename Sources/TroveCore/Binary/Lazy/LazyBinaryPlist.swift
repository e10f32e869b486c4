import Foundation

/// A binary property list read on demand: opening it reads only the header and the trailer, and
/// each lookup reads only the objects on its way.
///
/// Use it to answer a question about a large file (the type of one value, one key's value, an
/// array's count) without decoding the rest. Every object a lookup touches is validated as the
/// full ``BinaryPlistReader`` validates it, and a problem is a ``PlistError`` with the byte
/// offset; but objects a lookup does not touch are never read, so a file can be damaged in a
/// place that no lookup reports. Read the file with ``Plist/read(_:options:)`` to validate all of
/// it.
///
/// ```swift
/// let plist = try LazyBinaryPlist(data)                      // or LazyBinaryPlist(contentsOfFile:)
/// if let window = try plist.node(at: "Window.Frame") {
///     print(window.kind.plutilName)                          // "string"
///     let value = try window.materialize()                   // decodes this value only
/// }
/// ```
///
/// The plist keeps its bytes alive (a private copy, or a ``PlistByteSource`` such as a
/// memory-mapped file); it and its nodes are immutable values that may be shared between threads.
public struct LazyBinaryPlist: Sendable {
    let table: LazyObjectTable

    /// Opens a binary plist held in `data`, which is copied so that the nodes can outlive it.
    ///
    /// - Throws: ``PlistError`` with code `bad-magic` or `bad-trailer` when the header or trailer
    ///   is malformed; nothing else is read.
    public init(_ data: Data, limits: PlistLimits = .default) throws(PlistError) {
        try self.init(source: PlistByteBuffer(data), limits: limits)
    }

    /// Opens a binary plist whose bytes `source` owns, and keeps `source` alive as long as the
    /// plist or any of its nodes is.
    public init(source: any PlistByteSource, limits: PlistLimits = .default) throws(PlistError) {
        table = try LazyObjectTable(source: source, limits: limits)
    }

    /// The limits lookups and ``LazyPlistNode/materialize()`` enforce. Depth counts from the
    /// root, as in the full reader; the value count counts the materialized subtree.
    public var limits: PlistLimits { table.limits }

    /// How many objects the file's offset table lists.
    public var objectCount: Int { table.trailer.objectCount }

    /// The size of the input in bytes.
    public var byteCount: Int { table.bytes.count }

    /// The top object.
    ///
    /// - Throws: ``PlistError`` when its offset or header is malformed.
    public func root() throws(PlistError) -> LazyPlistNode {
        try LazyPlistNode.root(of: table)
    }

    /// The node at `path` from the root, or nil when a component names nothing: a missing key, an
    /// index out of range or not a number, or a scalar in the middle of the path (the rules of
    /// ``PlistValue/subscript(keyPath:)``).
    ///
    /// - Throws: ``PlistError`` when an object on the way is malformed; the error's `keyPath` is
    ///   the path up to the component that failed.
    public func node(at path: PlistKeyPath) throws(PlistError) -> LazyPlistNode? {
        try root().node(at: path)
    }

    /// Decodes the whole document, as ``BinaryPlistReader`` would without layout notes.
    public func materialize() throws(PlistError) -> PlistValue {
        try root().materialize()
    }
}
