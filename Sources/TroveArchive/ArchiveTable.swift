import Foundation
import TroveCore

/// A keyed archive's structure, checked and indexed for decoding, whichever way its `$objects`
/// are held (see ``ArchiveObjects``).
///
/// The checks are the ones every reader of the format relies on before any object is decoded:
/// `$archiver` is `NSKeyedArchiver`, `$version` is 100000, `$top` maps keys to references,
/// `$objects` is an array within ``KeyedArchiveLimits/maxObjects``, every reference in `$top`
/// and every `$class` reference is inside `$objects`, and every `$class` leads to a class record
/// with a string `$classname`. References inside objects are checked when they are followed.
struct ArchiveTable {
    let objects: ArchiveObjects
    /// The entries of `$top`, in the file's order.
    let topLevel: [(key: String, value: PlistValue)]
    /// For each entry of `$objects`, the index into ``classes`` of its class when it is a keyed
    /// object (a dictionary with `$class`), or -1.
    let classIndex: [Int32]
    /// The distinct class records the objects use.
    let classes: [ArchiveClass]

    /// The error for an archive whose top object is not a dictionary.
    static func notADictionary(_ kind: PlistValue.Kind) -> PlistError {
        PlistError(.archiveInvalid, "a keyed archive is a dictionary, not \(kind)")
    }

    init(
        objects: ArchiveObjects, topLevel: [(key: String, value: PlistValue)], classIndex: [Int32], classes: [ArchiveClass]
    ) {
        (self.objects, self.topLevel, self.classIndex, self.classes) = (objects, topLevel, classIndex, classes)
    }

    /// Checks and indexes the archive whose top dictionary is `root`.
    init(root: ArchiveFields, limits: KeyedArchiveLimits) throws(PlistError) {
        guard case .string(let archiver)? = try root["$archiver"] else {
            throw PlistError(.archiveInvalid, "$archiver is missing or not a string")
        }
        guard archiver == KeyedArchive.archiverName else {
            throw PlistError(.archiveInvalid, "unknown archiver \"\(archiver)\" ($archiver must be NSKeyedArchiver)")
        }
        guard case .integer(let version)? = try root["$version"] else {
            throw PlistError(.archiveInvalid, "$version is missing or not an integer")
        }
        guard version == PlistInteger(KeyedArchive.version) else {
            throw PlistError(.archiveInvalid, "unknown archive version \(version) ($version must be 100000)")
        }
        guard let count = try root.arrayCount(forKey: "$objects") else {
            throw PlistError(.archiveInvalid, "$objects is missing or not an array")
        }
        guard count <= limits.maxObjects else {
            throw PlistError(
                .sizeLimit, "$objects has \(count) entries, more than \(limits.maxObjects) (KeyedArchiveLimits.maxObjects)")
        }
        guard count > 0 else {
            throw PlistError(.archiveInvalid, "$objects is empty (entry 0 must be $null)")
        }
        guard case .dictionary(let top)? = try root["$top"] else {
            throw PlistError(.archiveInvalid, "$top is missing or not a dictionary")
        }
        var topLevel: [(key: String, value: PlistValue)] = []
        topLevel.reserveCapacity(top.count)
        for (key, value) in top {
            if case .uid(let uid) = value, uid >= UInt64(count) {
                throw PlistError(
                    .archiveBadReference, keyPath: [.key(key)],
                    "$top entry \"\(key)\" refers to object \(uid), past the \(count) entries of $objects")
            }
            topLevel.append((key, value))
        }
        objects = try root.archiveObjects(forKey: "$objects")
        self.topLevel = topLevel
        (classIndex, classes) = try Self.indexClasses(objects)
    }

    /// What `$top[key]` holds (normally a reference), if the key is present.
    func topLevelValue(forKey key: String) -> PlistValue? {
        topLevel.first { $0.key == key }?.value
    }

    /// Finds the class record of every keyed object, sharing one ``ArchiveClassRecord`` per
    /// record entry. Linear in the number of objects.
    private static func indexClasses(_ objects: ArchiveObjects) throws(PlistError) -> ([Int32], [ArchiveClass]) {
        let count = objects.count
        var classIndex = [Int32](repeating: -1, count: count)
        var classes: [ArchiveClass] = []
        // The class slot of each record entry, or -1: an array, since most entries are objects.
        var recordSlot = [Int32](repeating: -1, count: count)
        for uid in 0..<count {
            guard let classReference = try objects.classReference(uid) else { continue }
            var path: [PlistKeyPath.Component] { [.key("$objects"), .index(uid)] }
            guard case .uid(let recordUID) = classReference else {
                throw .archive(.archiveBadClass, "object \(uid) has a $class that is \(classReference.kind), not a reference", at: path)
            }
            guard recordUID < UInt64(count) else {
                throw .archive(
                    .archiveBadReference, "object \(uid) has $class \(recordUID), past the \(count) entries of $objects", at: path)
            }
            let record = Int(recordUID)
            if recordSlot[record] >= 0 {
                classIndex[uid] = recordSlot[record]
                continue
            }
            guard record != uid else {
                throw .archive(.archiveBadClass, "object \(uid) is its own $class (a cycle of class references)", at: path)
            }
            guard let recordFields = try objects.fields(record) else {
                throw .archive(
                    .archiveBadClass,
                    "$class of object \(uid) is object \(record), a \(try objects.kind(record)), not a class record", at: path)
            }
            if try recordFields.contains("$class") {
                throw .archive(
                    .archiveBadClass,
                    "$class of object \(uid) is object \(record), which has a $class of its own (class records may not chain)",
                    at: path)
            }
            guard case .string(let name)? = try recordFields["$classname"] else {
                throw .archive(.archiveBadClass, "class record \(record) of object \(uid) has no string $classname", at: path)
            }
            let listed = try recordFields["$classes"]
            var chain: [String] = []
            if let listed {
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
            if case .array(let listed)? = try recordFields["$classhints"] {
                hints = listed.compactMap(\.stringValue)
            }
            let slot = Int32(classes.count)
            classes.append(ArchiveClass(ArchiveClassRecord(name: name, chain: chain, hints: hints, recordsChain: listed != nil)))
            recordSlot[record] = slot
            classIndex[uid] = slot
        }
        return (classIndex, classes)
    }
}

/// A class record of an archive being decoded, shared by reference: every object decoded hands
/// its class along, and a record (a name and two arrays) would be three reference counts to copy.
@usableFromInline
final class ArchiveClass: Sendable {
    let record: ArchiveClassRecord

    init(_ record: ArchiveClassRecord) { self.record = record }

    /// `$classname`.
    var name: String { record.name }
    /// The class and its superclasses, most derived first.
    var chain: [String] { record.chain }
}
