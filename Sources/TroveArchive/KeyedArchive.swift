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

    /// For each entry of `$objects`, the index into ``classes`` of its class when it is a keyed
    /// object (a dictionary with `$class`), or -1.
    let classIndex: [Int32]
    /// The distinct class records the objects use.
    let classes: [ArchiveClassRecord]

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
            throw PlistError(.archiveInvalid, "a keyed archive is a dictionary, not \(document.value.kind)")
        }
        guard case .string(let archiver)? = plist["$archiver"] else {
            throw PlistError(.archiveInvalid, "$archiver is missing or not a string")
        }
        guard archiver == Self.archiverName else {
            throw PlistError(.archiveInvalid, "unknown archiver \"\(archiver)\" ($archiver must be NSKeyedArchiver)")
        }
        guard case .integer(let version)? = plist["$version"] else {
            throw PlistError(.archiveInvalid, "$version is missing or not an integer")
        }
        guard version == PlistInteger(Self.version) else {
            throw PlistError(.archiveInvalid, "unknown archive version \(version) ($version must be 100000)")
        }
        guard case .array(let objects)? = plist["$objects"] else {
            throw PlistError(.archiveInvalid, "$objects is missing or not an array")
        }
        guard objects.count <= limits.maxObjects else {
            throw PlistError(
                .sizeLimit, "$objects has \(objects.count) entries, more than \(limits.maxObjects) (KeyedArchiveLimits.maxObjects)")
        }
        guard !objects.isEmpty else {
            throw PlistError(.archiveInvalid, "$objects is empty (entry 0 must be $null)")
        }
        guard case .dictionary(let top)? = plist["$top"] else {
            throw PlistError(.archiveInvalid, "$top is missing or not a dictionary")
        }
        var topLevel: [(key: String, value: PlistValue)] = []
        topLevel.reserveCapacity(top.count)
        for (key, value) in top {
            guard case .uid(let uid) = value else {
                topLevel.append((key, value))
                continue
            }
            guard uid < UInt64(objects.count) else {
                throw PlistError(
                    .archiveBadReference, keyPath: [.key(key)],
                    "$top entry \"\(key)\" refers to object \(uid), past the \(objects.count) entries of $objects")
            }
            topLevel.append((key, value))
        }
        self.objects = objects
        self.topLevel = topLevel
        (classIndex, classes) = try Self.indexClasses(objects)
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

    /// Finds the class record of every keyed object, sharing one ``ArchiveClassRecord`` per
    /// record entry. Linear in the number of objects.
    private static func indexClasses(_ objects: [PlistValue]) throws(PlistError) -> ([Int32], [ArchiveClassRecord]) {
        var classIndex = [Int32](repeating: -1, count: objects.count)
        var classes: [ArchiveClassRecord] = []
        var recordSlot: [Int: Int32] = [:]
        for (uid, object) in objects.enumerated() {
            guard case .dictionary(let fields) = object, let classReference = fields["$class"] else { continue }
            let path: [PlistKeyPath.Component] = [.key("$objects"), .index(uid)]
            guard case .uid(let recordUID) = classReference else {
                throw .archive(.archiveBadClass, "object \(uid) has a $class that is \(classReference.kind), not a reference", at: path)
            }
            guard recordUID < UInt64(objects.count) else {
                throw .archive(
                    .archiveBadReference,
                    "object \(uid) has $class \(recordUID), past the \(objects.count) entries of $objects", at: path)
            }
            let record = Int(recordUID)
            if let known = recordSlot[record] {
                classIndex[uid] = known
                continue
            }
            guard record != uid else {
                throw .archive(.archiveBadClass, "object \(uid) is its own $class (a cycle of class references)", at: path)
            }
            guard case .dictionary(let recordFields) = objects[record] else {
                throw .archive(
                    .archiveBadClass,
                    "$class of object \(uid) is object \(record), a \(objects[record].kind), not a class record", at: path)
            }
            if recordFields["$class"] != nil {
                throw .archive(
                    .archiveBadClass,
                    "$class of object \(uid) is object \(record), which has a $class of its own (class records may not chain)",
                    at: path)
            }
            guard case .string(let name)? = recordFields["$classname"] else {
                throw .archive(.archiveBadClass, "class record \(record) of object \(uid) has no string $classname", at: path)
            }
            var chain: [String] = []
            if let listed = recordFields["$classes"] {
                guard case .array(let names) = listed else {
                    throw .archive(.archiveBadClass, "class record \(record) has $classes that is not an array", at: path)
                }
                for entry in names {
                    guard case .string(let s) = entry else {
                        throw .archive(.archiveBadClass, "class record \(record) lists a \(entry.kind) in $classes", at: path)
                    }
                    chain.append(s)
                }
            }
            if chain.first != name { chain.insert(name, at: 0) }
            var hints: [String] = []
            if case .array(let listed)? = recordFields["$classhints"] {
                hints = listed.compactMap(\.stringValue)
            }
            let slot = Int32(classes.count)
            classes.append(ArchiveClassRecord(name: name, chain: chain, hints: hints, recordsChain: recordFields["$classes"] != nil))
            recordSlot[record] = slot
            classIndex[uid] = slot
        }
        return (classIndex, classes)
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
