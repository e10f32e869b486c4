import Foundation
import TroveCore

/// A keyed archive as stored: the property list `NSKeyedArchiver` writes, checked for the
/// archive's structure and indexed for decoding.
///
/// Reading checks what every reader of the format relies on before any object is decoded:
/// `$archiver` is `NSKeyedArchiver`, `$version` is 100000, `$top` maps keys to references,
/// `$objects` is an array within ``KeyedArchiveLimits/maxObjects``, every reference in `$top`
/// and every `$class` reference is inside `$objects`, and every `$class` leads to a class record
/// with a string `$classname`. References inside objects are checked when they are followed.
///
/// The archive keeps the ``PlistDocument`` it came from, so an archive that is read and written
/// back without changes comes out byte for byte the same (``write()``).
public struct KeyedArchive: Sendable {
    /// The name every `NSKeyedArchiver` archive carries in `$archiver`.
    public static let archiverName = "NSKeyedArchiver"
    /// The only archive version Foundation writes and reads.
    public static let version = 100_000

    /// The property list, with its layout notes when it was read from bytes.
    public let document: PlistDocument
    /// `$objects`: index 0 is `$null`, the others are objects and class records.
    public let objects: [PlistValue]
    /// The entries of `$top`, in the file's order: normally a reference to an object, but a
    /// top-level number is stored in place (a nib's `IB.systemFontUpdateVersion`).
    public let topLevel: [(key: String, value: PlistValue)]
    /// For each entry of `$objects`, its class's index into ``classes``, or -1.
    let classIndex: [Int32]
    /// The distinct class records the objects use.
    let classes: [ArchiveClass]

    /// The checked and indexed structure the unarchiver decodes from.
    var table: ArchiveTable {
        ArchiveTable(objects: .values(objects), topLevel: topLevel, classIndex: classIndex, classes: classes)
    }

    /// Reads an archive from the bytes of a binary or XML property list. With `keepsLayout` (the
    /// default) the layout notes are kept for a byte-exact ``write()``; decoding alone does not
    /// need them, and reads faster without.
    public init(data: Data, limits: KeyedArchiveLimits = .default, keepsLayout: Bool = true) throws(PlistError) {
        let document = try Plist.read(data, options: PlistReadOptions(limits: limits.plist, keepsLayout: keepsLayout))
        try self.init(document: document, limits: limits)
    }

    /// Checks and indexes an archive already read as a property list.
    public init(value: PlistValue, limits: KeyedArchiveLimits = .default) throws(PlistError) {
        try self.init(document: PlistDocument(value: value, format: .binary), limits: limits)
    }

    /// Checks and indexes an archive held in a document (its format and layout are kept for
    /// ``write()``).
    public init(document: PlistDocument, limits: KeyedArchiveLimits = .default) throws(PlistError) {
        self.document = document
        guard case .dictionary(let plist) = document.value else {
            throw ArchiveTable.notADictionary(document.value.kind)
        }
        let table = try ArchiveTable(root: ArchiveFields(.values(plist)), limits: limits)
        guard case .values(let objects) = table.objects else { preconditionFailure("a value archive reads its objects as values") }
        self.objects = objects
        (topLevel, classIndex, classes) = (table.topLevel, table.classIndex, table.classes)
    }

    /// What `$top[key]` holds (normally a reference), if the key is present.
    public func topLevelValue(forKey key: String) -> PlistValue? {
        topLevel.first { $0.key == key }?.value
    }

    /// The archive's bytes: byte for byte the input when the archive was read from bytes, since
    /// nothing in it can change.
    public func write() throws(PlistError) -> Data {
        try Plist.write(document)
    }
}

/// One class record of an archive: `$classname`, `$classes` and `$classhints`.
public struct ArchiveClassRecord: Sendable, Hashable {
    /// `$classname`.
    public var name: String
    /// `$classes`: the class and its superclasses, most derived first; just ``name`` when the
    /// record has no `$classes`.
    public var chain: [String]
    /// `$classhints`: classes to fall back on, when the record lists them.
    public var hints: [String]
    /// Whether the record had a `$classes` entry (Foundation leaves it out for a class written
    /// under a mapped name).
    public var recordsChain: Bool

    /// A record for a class with its chain (most derived first, normally ending in `NSObject`).
    public init(name: String, chain: [String], hints: [String] = [], recordsChain: Bool = true) {
        self.name = name
        self.chain = chain.first == name ? chain : [name] + chain
        self.hints = hints
        self.recordsChain = recordsChain
    }
}
