import TroveCore

/// A type whose instances can stand as one value of a keyed archive: a field of an object, an
/// element of a collection, or a top-level object.
///
/// The library makes the value model's types conform (`String`, every fixed-width integer,
/// `Double`, `Float`, `Bool`, `Data`, `Date`, `URL`, `UUID`, `PlistValue`, arrays, sets and
/// dictionaries of conforming types), spelling each as Foundation's archiver spells the matching
/// Foundation class. Your own types conform through ``KeyedArchivable``; you rarely implement
/// these two requirements yourself.
public protocol ArchiveRepresentable {
    /// Writes the value into the archive and returns what the field that holds it stores: a
    /// reference to an entry of `$objects`, or, for numbers and booleans, the number itself (as
    /// `encodeInteger(_:forKey:)` and friends store them).
    func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue

    /// Reads a value of this type from what a field stores (a reference, or a number in place).
    static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Self
}

/// A type that archives itself by key, as an `NSCoding` class does: an object of the archive with
/// a class record (`$classname`, `$classes`) and the keys its ``encode(to:)`` writes.
///
/// Classes and value types can both conform. A class instance referenced twice is archived once
/// and decoded as one shared instance; a value type is copied. To decode a reference that may
/// close a cycle (a child's pointer back to its parent), use
/// ``ArchiveDecoder/decodeDeferred(_:forKey:assign:)``; see `Formats.md`, "Keyed archives",
/// for how cycles resolve.
///
/// ```swift
/// final class Note: KeyedArchivable {
///     static let archiveClassName = "Note"
///     var title: String
///     weak var folder: Folder?
///     init(from decoder: ArchiveDecoder) throws {
///         title = try decoder.decode(String.self, forKey: "title")
///         try decoder.decodeDeferred(Folder.self, forKey: "folder") { [unowned self] in self.folder = $0 }
///     }
///     func encode(to encoder: ArchiveEncoder) throws {
///         try encoder.encode(title, forKey: "title")
///         try encoder.encode(folder, forKey: "folder")
///     }
/// }
/// ```
public protocol KeyedArchivable: ArchiveRepresentable {
    /// The class name written in the archive (`$classname`). The default is the type's name
    /// without its module (`Note`); Foundation on Linux writes `Module.Note` for a Swift class,
    /// so set it to that to exchange archives with Foundation, or to any name your readers know.
    /// An ``KeyedArchiver`` can also override it per type.
    static var archiveClassName: String { get }

    /// The class and its superclasses, most derived first, as `$classes` lists them. The default
    /// is ``archiveClassName`` followed by `NSObject`, what Foundation writes for a direct
    /// `NSObject` subclass.
    static var archiveClassChain: [String] { get }

    /// Writes the value's keys.
    func encode(to encoder: ArchiveEncoder) throws

    /// Reads a value from the keys of an archived object.
    init(from decoder: ArchiveDecoder) throws
}

extension KeyedArchivable {
    public static var archiveClassName: String { String(describing: Self.self) }

    public static var archiveClassChain: [String] { [archiveClassName, "NSObject"] }

    public func encodeArchiveField(with encoder: ArchiveEncoder) throws -> PlistValue {
        .uid(UInt64(try encoder.encodeObject(self)))
    }

    public static func decodeArchiveField(_ field: PlistValue, with decoder: ArchiveDecoder) throws -> Self {
        try decoder.decodeObject(Self.self, field: field)
    }
}

/// The class an instance is written under, when it differs from its type's
/// (``ArchivedObject`` carries the class it was read with).
protocol ArchiveInstanceClass {
    var archiveClassRecord: ArchiveClassRecord { get }
}
