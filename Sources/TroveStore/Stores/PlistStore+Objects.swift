import Foundation
import TroveArchive
import TroveCore

extension PlistStore {
    /// Keeps an object graph (a ``KeyedArchivable`` root, with its shared references and cycles):
    /// as an `NSKeyedArchiver` archive in a `keyed-archive` or `memory` store, and as a keyed
    /// dictionary tree (`$class`, `$id`, `$ref`; see "Keyed dictionary trees" in `Formats.md`) in
    /// the property-list format stores, spelled for the store's format.
    ///
    /// ```swift
    /// let store = PlistStore(path: "Library.archive", type: KeyedArchiveStoreType.binary)
    /// try store.saveObject(library)
    /// let back = try store.loadObject(Library.self, unarchiver: KeyedUnarchiver(registry: registry))
    /// ```
    ///
    /// - Throws: ``PlistError`` from the archiver (an object's own error wrapped as
    ///   `archive-object-failed`) or from the save; the file is then as it was.
    public func saveObject<T: ArchiveRepresentable>(_ root: T, archiver: KeyedArchiver = KeyedArchiver()) throws {
        let value: PlistValue
        switch try typeForSave() {
        case is KeyedArchiveStoreType, is MemoryStoreType:
            value = try archiver.archivedValue(topLevel: [("root", root)])
        case let formatType as FormatStoreType:
            value = try archiver.treeValue(root, for: formatType.format)
        default:
            value = try archiver.treeValue(root, for: .binary)
        }
        try save(value)
    }

    /// The object graph kept, decoded as `type`, or nil when nothing is kept yet. An archive is
    /// unarchived (root key `root`); anything else is read as a keyed dictionary tree.
    ///
    /// - Throws: ``PlistError``: the file cannot be read, or the graph does not decode (a class
    ///   the unarchiver's registry does not map, a missing key, a class not allowed).
    public func loadObject<T: ArchiveRepresentable>(_ type: T.Type, unarchiver: KeyedUnarchiver = KeyedUnarchiver()) throws -> T? {
        guard let value = try load() else { return nil }
        if case .dictionary(let entries) = value, entries["$archiver"] != nil {
            return try unarchiver.decode(type, from: try KeyedArchive(value: value))
        }
        return try unarchiver.decode(type, fromTree: value)
    }
}
